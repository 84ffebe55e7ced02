"""A kind of mail is one record (``pbem.mail.kinds``) and one enum value
(``pbem.core.outbox.OutboxKind``): every kind has its record and templates, the
inbound side agrees with the records about which mails carry a reply address,
and no code or template compares a kind with a string of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pbem.core.outbox import OutboxKind
from pbem.inbound import reply_tokens
from pbem.mail import kinds, messages

PACKAGE = Path(__file__).resolve().parents[2] / "pbem"
#: Every kind's value: the strings a comparison must not spell out.
VALUES = frozenset(OutboxKind)


def test_every_mail_kind_has_its_record_and_templates() -> None:
    # A webhook's row and a push's are posts (pbem.mail.webhook_posts, push_posts), not mail.
    assert set(kinds.RECORDS) == set(OutboxKind) - {OutboxKind.WEBHOOK, OutboxKind.PUSH}
    for kind, record in kinds.RECORDS.items():
        assert record.kind == kind
        assert kinds.record_of(str(kind)) is record
        assert (messages.TEMPLATES / f"{kind}.txt").is_file(), kind
        assert (messages.TEMPLATES / f"{kind}.html").is_file(), kind
    with pytest.raises(KeyError):
        kinds.record_of("webhook")
    with pytest.raises(KeyError):
        kinds.record_of("push")


def test_the_inbound_side_finds_the_tokens_the_records_carry() -> None:
    carrying = {kind for kind, record in kinds.RECORDS.items()
                if isinstance(record, kinds.GameMail) and record.carries_token}
    assert carrying == set(reply_tokens.REMEMBERED_KINDS)
    # A record that says it carries a token is one that names its turn.
    naming = {kind for kind, record in kinds.RECORDS.items()
              if isinstance(record, kinds.GameMail) and type(record).reply_ply is not kinds.GameMail.reply_ply}
    assert naming == carrying


def _strings(node: ast.expr) -> set[str]:
    """The string constants an operand spells out: itself, or the items of a
    tuple, list or set written in place."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_strings(e) for e in node.elts)) if node.elts else set()
    return set()


def _names_a_kind(node: ast.expr) -> bool:
    return re.search(r"kind\b", ast.unparse(node)) is not None


def _compared_kinds(source: str, relative: str) -> list[str]:
    """``kind == "turn"``, ``row.kind in ("turn", "reminder")``,
    ``col(Outbox.kind).in_(["turn"])``, ``enqueue(kind="turn")``, a tuple of
    kinds to compare with (``("login", "link")``): each with its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.expr):
            continue
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            pairs = [(a, b) for a in operands for b in operands if a is not b]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "in_":
            pairs = [(node.func.value, arg) for arg in node.args]
        elif isinstance(node, ast.Call):
            pairs = [(ast.Name(id="kind"), k.value) for k in node.keywords if k.arg == "kind"]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) > 1:
            spelled = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if len(spelled) == len(node.elts) and set(spelled) <= VALUES:
                # A set of kinds of its own (``ASKED_FOR = ("login", "link")``), compared elsewhere.
                found.append(f"{relative}:{node.lineno}: {ast.unparse(node)[:100]}")
                continue
        for named, literal in pairs:
            if _strings(literal) & VALUES and _names_a_kind(named):
                found.append(f"{relative}:{node.lineno}: {ast.unparse(node)[:100]}")
                break
    return found


_TEMPLATE_COMPARISON = re.compile(
    r"""kind\s*(?:==|!=|(?:not\s+)?in)\s*[(\[]?\s*(["'][^)\]%}]*)|(["'][^"']*["'])\s*(?:==|!=)\s*[\w.]*kind\b""")


def _template_kinds(text: str, relative: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in _TEMPLATE_COMPARISON.finditer(line):
            spelled = set(re.findall(r"""["']([^"']*)["']""", match.group(1) or match.group(2)))
            if spelled & VALUES:
                found.append(f"{relative}:{number}: {match.group(0)}")
    return found


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_no_kind_is_compared_as_a_string_of_its_own() -> None:
    found = [line for path in sorted(PACKAGE.rglob("*.py")) if "migrations" not in path.parts
             for line in _compared_kinds(path.read_text("utf-8"), _relative(path))]
    found += [line for path in sorted((PACKAGE / "templates").rglob("*")) if path.suffix in (".html", ".txt")
              for line in _template_kinds(path.read_text("utf-8"), _relative(path))]
    assert not found, "compare kinds with pbem.core.outbox.OutboxKind:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'if row.kind == "turn": pass', 'x = kind in ("digest", "talk")', 'q.where(col(Outbox.kind).in_(["turn"]))',
    'enqueue(session, kind="login")', 'if "game-over" != sent.kind: pass', 'ASKED_FOR = ("login", "link")'])
def test_the_check_sees_a_kind_spelled_out(source: str) -> None:
    assert _compared_kinds(source, "pbem/mail/example.py")
    assert not _compared_kinds(source.replace('"', "'").replace("'turn'", "OutboxKind.TURN")
                               .replace("'login'", "OutboxKind.LOGIN").replace("'game-over'", "OutboxKind.GAME_OVER")
                               .replace("'digest', 'talk'", "OutboxKind.DIGEST, OutboxKind.TALK")
                               .replace("'login', 'link'", "OutboxKind.LOGIN, OutboxKind.LINK"),
                               "pbem/mail/example.py")


@pytest.mark.parametrize("text", [
    '{% if kind != "login" %}', "{% if kind in ('turn', 'digest') %}", '{% if "talk" == kind %}'])
def test_the_check_sees_a_kind_spelled_out_in_a_template(text: str) -> None:
    assert _template_kinds(text, "pbem/templates/mail/example.txt")
