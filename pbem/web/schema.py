"""JSON Schema from the view's types (:mod:`pbem.rules.views`), for the API's
document: what a ``TypedDict`` says of its keys (which there are, which are
required, what each holds) is written there once and read here.

>>> from typing import Annotated, Literal, NotRequired, TypedDict
>>> from pbem.rules.views import Schema
>>> class Point(TypedDict):
...     x: Annotated[int, Schema(minimum=0)]
...     label: str | None
...     kind: NotRequired[Literal["a", "b"]]
>>> object_schema(Point)
{'type': 'object', 'required': ['x', 'label'], 'properties': {'x': {'type': 'integer', 'minimum': 0}, \
'label': {'type': ['string', 'null']}, 'kind': {'enum': ['a', 'b']}}}
"""

from __future__ import annotations

import enum
import types
from typing import (
    Annotated,
    Any,
    Literal,
    Mapping,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from ..rules.views import Schema

_SIMPLE: dict[type, str] = {bool: "boolean", int: "integer", float: "number", str: "string",
                              type(None): "null"}


def object_schema(typed_dict: type, *, description: str | None = None,
                  refine: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The schema of a ``TypedDict``: every key a property, the required ones
    required.  ``refine`` adds keywords to some keys' schemas (what the types
    cannot say, for want of the service's bounds); a key that is not there is
    an error."""
    hints = get_type_hints(typed_dict, include_extras=True)
    required_keys: frozenset[str] = getattr(typed_dict, "__required_keys__")
    required = []
    properties = {}
    for key, hint in hints.items():
        origin = get_origin(hint)
        if origin is Required or origin is NotRequired:
            # Said here, not trusted from __required_keys__: with postponed
            # annotations Python 3.11 does not see them there.
            needed = origin is Required
            hint = get_args(hint)[0]
        else:
            needed = key in required_keys
        if needed:
            required.append(key)
        properties[key] = json_schema(hint)
    for key, keywords in (refine or {}).items():
        if key not in properties:
            raise KeyError(f"{typed_dict.__name__} has no key {key!r} to refine")
        properties[key] = {**properties[key], **keywords}
    out: dict[str, Any] = {"type": "object"}
    if description is not None:
        out["description"] = description
    out.update(required=required, properties=properties)
    return out


def json_schema(hint: object) -> dict[str, Any]:
    """The schema of one type: ``bool``, ``int``, ``float``, ``str``, ``None``,
    ``list``, ``dict`` (its keys' schema as ``propertyNames`` unless they are
    plain strings), ``Literal`` and enums, unions (with ``None``: nullable), ``TypedDict``,
    and ``Annotated`` with :class:`~pbem.rules.views.Schema` keywords."""
    if isinstance(hint, type) and hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": [member.value for member in hint]}
    if is_typeddict(hint):
        assert isinstance(hint, type)
        return object_schema(hint)
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated:
        out = json_schema(args[0])
        for note in args[1:]:
            if isinstance(note, Schema):
                out.update(note.keywords)
        return out
    if origin is Literal:
        return {"enum": list(args)}
    if origin is list:
        return {"type": "array", "items": json_schema(args[0])}
    if origin is dict:
        out = {"type": "object"}
        if args[0] is not str:
            out["propertyNames"] = json_schema(args[0])
        out["additionalProperties"] = json_schema(args[1])
        return out
    if origin is Union or origin is types.UnionType:
        others = [a for a in args if a is not type(None)]
        one = json_schema(others[0]) if len(others) == 1 else {"anyOf": [json_schema(a) for a in others]}
        return _nullable(one) if len(others) < len(args) else one
    raise TypeError(f"no JSON Schema for {hint!r}")


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``: the keywords of a type apply only to values of that
    type, so ``null`` joins its ``type`` (and its ``enum``, which holds for all)."""
    kind = schema.get("type")
    if "anyOf" in schema or "const" in schema or (kind is None and "enum" not in schema):
        return {"anyOf": [schema, {"type": "null"}]}
    out = dict(schema)
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out
