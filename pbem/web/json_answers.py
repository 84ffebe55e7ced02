"""The JSON of every answer, written by orjson.

Flask's own provider writes it with the standard library: on the busiest
answer, a move's (the mover's whole view), that was a tenth of the request's
own time (issue 34).  orjson writes the same document in a fraction of it.
What a client parses is unchanged: the same keys in the same order, the same
values; only the bytes differ where JSON lets them (text outside ASCII, U+2028
included, is written as UTF-8 rather than as ``\\u`` escapes).  Two values no
answer holds come out otherwise: a float that is not a number is written as
``null`` (Flask wrote ``NaN``, which is not JSON), and a plain ``Enum`` as its
value (Flask refused it).  Dates, decimals, data classes
and markup still go through Flask's conversions; anything orjson refuses (an
integer past 64 bits) is written by the standard library as before.  Reading
requests stays with the standard library: it takes what orjson refuses (a lone
surrogate's escape), which the security hook answers with its own refusal."""

from __future__ import annotations

from typing import Any

import flask
import orjson
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response

# Keys that are not text are written as text, as json.dumps writes them.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class Answers(DefaultJSONProvider):
    sort_keys = False  # the order the views chose

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if (self.compact is None and self._app.debug) or self.compact is False or self.sort_keys:
            return super().response(*args, **kwargs)  # indented for reading, or sorted: Flask's
        obj = self._prepare_response_obj(args, kwargs)
        try:
            body = orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return super().response(*args, **kwargs)
        return flask.Response(body + b"\n", mimetype=self.mimetype)  # the app's class: it sets none of its own
