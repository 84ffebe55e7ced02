"""Tests of the rules core (``pbem.rules``)."""
