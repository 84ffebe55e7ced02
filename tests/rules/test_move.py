"""Moves: the record form FROM-TO, what people type, and refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.rules.errors import IllegalMove, MalformedMove
from pbem.rules.move import Move

ids = st.integers(min_value=0, max_value=10**40)
SETTINGS = settings(max_examples=100, deadline=None, database=None)


@SETTINGS
@given(ids, ids)
def test_format_parse_round_trip(a: int, b: int) -> None:
    m = Move(a, b)
    assert str(m) == f"{a}-{b}" == m.text()
    assert Move.parse(str(m)) == m
    assert Move.parse(str(m), strict=False) == m
    assert (m.source, m.target) == (a, b)


@SETTINGS
@given(ids, ids)
def test_repr_is_runnable(a: int, b: int) -> None:
    m = Move(a, b)
    assert eval(repr(m), {"Move": Move}) == m
    assert repr(m) == f"Move({a}, {b})"


HUMAN_SEPARATORS = [" ", "  ", "\t", ">", "->", " > ", " -> ", " to ", " TO ", "  to  ", " - ", "→", " → "]


@SETTINGS
@given(
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.sampled_from(HUMAN_SEPARATORS),
    st.sampled_from(["", " ", "  ", "\t"]),
    st.sampled_from(["", " ", "\n", "  "]),
)
def test_human_forms(a: int, b: int, sep: str, lead: str, trail: str) -> None:
    text = f"{lead}{a}{sep}{b}{trail}"
    assert Move.parse(text, strict=False) == Move(a, b)
    with pytest.raises(MalformedMove):
        Move.parse(text)  # strict is the default
    with pytest.raises(MalformedMove):
        Move.parse(text, strict=True)


@pytest.mark.parametrize("text", ["12 13", "12>13", "12 to 13", " 12-13 ", "12->13", "12 - 13", "12-13\n"])
def test_named_human_forms(text: str) -> None:
    assert Move.parse(text, strict=False) == Move(12, 13)
    with pytest.raises(MalformedMove):
        Move.parse(text, strict=True)


MALFORMED = [
    "", " ", "12", "12-", "-13", "-", "12--13", "12-13-14", "a-b", "12-b", "twelve-13",
    "12.5-13", "-1-2", "+1-2", "1e3-2", "0x1-2", "12_0-13", "１２-13", "١٢-13", "12–13",
    "12-13x", "x12-13", "1" * 300 + "-1", "12 to", "to 13", "12 too 13",
]


@pytest.mark.parametrize("text", MALFORMED)
@pytest.mark.parametrize("strict", [True, False])
def test_malformed_text(text: str, strict: bool) -> None:
    with pytest.raises(MalformedMove) as info:
        Move.parse(text, strict=strict)
    assert info.value.code == "malformed-move"
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, IllegalMove)
    assert "not a move" in info.value.message


@pytest.mark.parametrize("value", [None, 12, 12.5, ["12-13"], {"move": "12-13"}, b"12-13", True, ("12", "13")])
def test_malformed_non_strings(value: object) -> None:
    with pytest.raises(MalformedMove):
        Move.parse(value)
    with pytest.raises(ValueError):
        Move.parse(value, strict=False)


def test_malformed_message_of_long_input_is_short() -> None:
    with pytest.raises(MalformedMove) as info:
        Move.parse(["x" * 1000])
    assert len(info.value.message) < 200


@SETTINGS
@given(st.text(max_size=30))
def test_parse_never_raises_anything_but_malformed(text: str) -> None:
    for strict in (True, False):
        try:
            m = Move.parse(text, strict=strict)
        except MalformedMove:
            continue
        assert isinstance(m.source, int) and isinstance(m.target, int)
        assert m.source >= 0 and m.target >= 0
        if strict:
            # the record form: exactly two ASCII digit runs joined by a hyphen
            left, right = text.split("-")
            assert left.isascii() and left.isdigit() and right.isascii() and right.isdigit()


def test_leading_zeros_parse_to_the_number() -> None:
    assert Move.parse("012-0013") == Move(12, 13)


def test_move_is_immutable_and_hashable() -> None:
    m = Move(12, 13)
    with pytest.raises(AttributeError):
        m.source = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        m.target = 5  # type: ignore[misc]
    assert m == Move(12, 13)
    assert m != Move(13, 12)
    assert len({m, Move(12, 13), Move(13, 12)}) == 2
    assert Move(12, 13)._replace(target=14) == Move(12, 14)
    assert m == Move(12, 13)  # _replace made a new one
