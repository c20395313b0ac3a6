"""MLIR's `--verify-diagnostics`: `expected-*` annotations in the input,
checked against the diagnostics a run emits.

    // expected-error @+1 {{requires a memref result}}
    %v = ktdp.construct_memory_view ...
    %t = ktdp.load %x ...   // expected-error {{element type}}
    // expected-note-re @below {{access tile on a view of {{f(16|32)}} built here}}
    // expected-error @unknown {{a diagnostic without a location}}

    problems = check_expectations(text, "kernel.mlir", diagnostics)
    # [] when every expectation is met and every diagnostic expected

Semantics are those of MLIR's `SourceMgrDiagnosticVerifierHandler`:

- An annotation is `expected-<kind>[-re] [@<where>] {{<message>}}` with kind
  `error`, `warning`, `note` or `remark`; the message runs to the last `}}`,
  which must end the line (so one annotation per line).
- `<where>`: absent, the annotation's own line; `@+N` / `@-N`, N lines below /
  above; `@above` / `@below`, the nearest line above / below that is not
  itself an annotation line; `@unknown`, a diagnostic without a location.
- A plain message matches a diagnostic whose message contains it. In the
  `-re` form every `{{...}}` inside the message is a regular expression and
  the rest literal text; it matches anywhere in the diagnostic's message.
- A diagnostic is expected by an annotation for its line with a matching
  message and the same kind (a diagnostic's notes are checked on their own,
  as diagnostics of kind `note`). Same line and message but another kind is
  reported as MLIR does: `'warning' diagnostic emitted when expecting a
  'error'`. An annotation can absorb more than one identical diagnostic, as
  in MLIR; identical annotations are used up in order first.
- Every annotation must be met, and every diagnostic expected
  (`only_expected=True`, MLIR's `--verify-diagnostics=only-expected`,
  checks only the former).

Stricter than MLIR, which silently ignores whatever its regular expression
does not match (a vacuous pass):

- Annotations count only in `//` comments: an `expected-error {{x}}` inside a
  string literal (an attribute's text) is data, not an annotation.
- A malformed annotation is an error: an unknown kind (`expected-foo {{...}}`),
  a count (`expected-error-2 {{...}}`: MLIR has no count form, write one
  annotation per diagnostic), an unknown designator (`@bogus`), a missing or
  unterminated `{{...}}`, text after the closing `}}`, an invalid regular
  expression. A comment that mentions `expected-error` (or another kind) must
  therefore be a well-formed annotation.

Regular expressions are Python's `re` (MLIR uses POSIX extended regular
expressions; the bracket classes such as `[[:digit:]]` are translated).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from spyre_mlir.diagnostics import Diagnostic, Location

SEVERITIES = ("error", "warning", "note", "remark")

EXPECTED = re.compile(
    r"expected-(?P<sev>error|warning|note|remark)(?P<re>-re)?[ \t]*"
    r"(?:@(?P<where>[+-]\d+|above|below|unknown))?[ \t]*\{\{(?P<msg>.*)\}\}$"
)
"""A well-formed annotation, from `expected-` to the end of its (right-stripped) line."""

_TOKEN = re.compile(r"(?<![\w-])expected-(?P<kind>[\w-]*)")
_LOOKS_LIKE_ANNOTATION = re.compile(r"[ \t]*(?:@[^\s{]*)?[ \t]*\{\{")
_COUNT_FORM = re.compile(r"(?:error|warning|note|remark)-\d+")
_DESIGNATOR = re.compile(r"[ \t]*(?:@(?P<where>[^\s{]*))?[ \t]*")

_POSIX_CLASSES = {
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:alnum:]": "a-zA-Z0-9",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:space:]": r" \t\n\r\f\v",
    "[:blank:]": r" \t",
    "[:punct:]": r"!-/:-@\[-`{-~",
}


@dataclass
class Expectation:
    """One `expected-*` annotation."""

    severity: str
    line: int | None  # None: @unknown
    message: str  # as written between the outer {{ }}
    at: Location  # where the annotation is written
    regex: re.Pattern[str] | None = None  # the -re form
    matched: bool = False

    def matches(self, message: str) -> bool:
        if self.regex is not None:
            return self.regex.search(message) is not None
        return self.message in message


def parse_expectations(
    text: str, name: str, line_offset: int = 0
) -> tuple[list[Expectation], list[Diagnostic]]:
    """The annotations in `text` and the problems with malformed ones.

    `text` is a file or a chunk of one whose first line is line
    `line_offset + 1` of file `name`."""
    expectations: list[Expectation] = []
    problems: list[Diagnostic] = []
    lines = text.split("\n")
    last_plain_line = 0  # nearest line above that is not an annotation line (0: none)
    waiting_for_below: list[Expectation] = []
    for index, raw in enumerate(lines):
        lineno = line_offset + index + 1
        found = _annotation(raw)
        if found is None:
            for e in waiting_for_below:
                e.line = lineno
            waiting_for_below.clear()
            last_plain_line = lineno
            continue
        start = found
        at = Location(name, lineno, start + 1)
        written = raw[start:].rstrip()
        m = EXPECTED.match(written)
        if m is None:
            problems.append(Diagnostic("error", _malformed(written), at))
            continue
        e = Expectation(m.group("sev"), lineno, m.group("msg"), at)
        if m.group("re"):
            try:
                e.regex = _compile(e.message)
            except ValueError as exc:
                problems.append(Diagnostic("error", str(exc), at))
                continue
        where = m.group("where")
        if where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain_line
        elif where == "below":
            e.line = line_offset + len(lines) + 1  # dangling: matches nothing
            waiting_for_below.append(e)
        elif where:
            e.line = lineno + int(where)
        expectations.append(e)
    return expectations, problems


def check_expectations(
    text: str,
    name: str,
    diagnostics: Iterable[Diagnostic],
    *,
    line_offset: int = 0,
    only_expected: bool = False,
) -> list[Diagnostic]:
    """The problems of a run: malformed annotations, unexpected diagnostics
    (unless `only_expected`), unmet expectations. Empty: verified."""
    expectations, problems = parse_expectations(text, name, line_offset)
    by_line: dict[int | None, list[Expectation]] = {}
    for e in expectations:
        by_line.setdefault(e.line, []).append(e)
    for d in _flatten(diagnostics):
        loc = d.location
        if loc is None:
            candidates = by_line.get(None, [])
        elif loc.file == name:
            candidates = by_line.get(loc.line, [])
        else:
            candidates = []
        same_text = [e for e in candidates if e.matches(d.message)]
        same_kind = [e for e in same_text if e.severity == d.severity]
        if same_kind:
            hit = next((e for e in same_kind if not e.matched), same_kind[0])
            hit.matched = True
        elif only_expected:
            continue
        elif same_text:
            near = same_text[-1]
            problems.append(
                Diagnostic("error", f"'{d.severity}' diagnostic emitted when expecting a '{near.severity}'", near.at)
            )
        else:
            problems.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.location))
    for e in expectations:
        if not e.matched:
            problems.append(Diagnostic("error", f'expected {e.severity} "{e.message}" was not produced', e.at))
    return problems


# -- helpers ------------------------------------------------------------------


def _flatten(diagnostics: Iterable[Diagnostic]) -> Iterator[Diagnostic]:
    for d in diagnostics:
        yield d
        yield from _flatten(d.notes)


def _comment_start(line: str) -> int:
    """Index of the `//` that starts the line's comment, -1 if none; a `//`
    inside a string literal does not (MLIR strings do not span lines)."""
    in_string = False
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "/" and line.startswith("//", i):
            return i
        i += 1
    return -1


def _annotation(line: str) -> int | None:
    """Start of the annotation on `line` (in its comment), None if none.

    A known kind (`expected-error...`) always starts one; an unknown
    `expected-foo` only when followed by `{{` (so prose like
    `expected-output` in a comment is left alone)."""
    if "expected-" not in line:
        return None
    comment = _comment_start(line)
    if comment < 0:
        return None
    for m in _TOKEN.finditer(line, comment):
        kind = m.group("kind")
        if kind.removesuffix("-re") in SEVERITIES or _LOOKS_LIKE_ANNOTATION.match(line, m.end()):
            return m.start()
    return None


def _malformed(written: str) -> str:
    """Why `written` (from `expected-` to the end of the line) is not an annotation."""
    m = _TOKEN.match(written)
    assert m is not None
    kind = m.group("kind")
    usage = "expected-<error|warning|note|remark>[-re] [@+N|@-N|@above|@below|@unknown] {{message}}"
    if _COUNT_FORM.fullmatch(kind):
        return (
            f"'expected-{kind}': MLIR's --verify-diagnostics has no count form; "
            "write one annotation per expected diagnostic"
        )
    if kind.removesuffix("-re") not in SEVERITIES:
        return f"unknown annotation 'expected-{kind}' (use {usage})"
    d = _DESIGNATOR.match(written, m.end())
    assert d is not None
    where = d.group("where")
    if where is not None and not re.fullmatch(r"[+-]\d+|above|below|unknown", where):
        return f"unknown location '@{where}' in 'expected-{kind}' (use @+N, @-N, @above, @below or @unknown)"
    rest = written[d.end() :]
    if not rest.startswith("{{"):
        return f"'expected-{kind}' must be followed by {{{{message}}}} (use {usage})"
    if "}}" not in rest[2:]:
        return f"unterminated '{{{{' in 'expected-{kind}': the message must end with '}}}}'"
    return f"text after the closing '}}}}' of 'expected-{kind}': the annotation must end its line"


def _compile(message: str) -> re.Pattern[str]:
    """MLIR's -re message: `{{regex}}` pieces, the rest literal text."""
    out: list[str] = []
    rest = message
    while True:
        start = rest.find("{{")
        if start < 0:
            out.append(re.escape(rest))
            break
        out.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        piece = rest[:end]
        for posix, python in _POSIX_CLASSES.items():
            piece = piece.replace(posix, python)
        try:
            re.compile(piece)
        except re.error as exc:
            raise ValueError(f"invalid regex '{rest[:end]}': {exc}") from None
        out.append(f"(?:{piece})")
        rest = rest[end + 2 :]
    return re.compile("".join(out))
