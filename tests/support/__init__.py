"""The shared fakes and helpers of the tests, one module for each kind of thing
they hold.  Fixtures are not here: they are defined in the conftest.py files
(tests/conftest.py for the shared ones, a layer's own conftest.py for the ones
only that layer uses); test modules import helpers from here, never from another
test module or a conftest."""
