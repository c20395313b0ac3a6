"""A deterministic fuzzer for spyre-mlir: seeded mutations of real kernels.
It is not part of the installed package: run it from a checkout, with
`test/fuzz` on the path (from the repository root):

    export PYTHONPATH=test/fuzz
    python -m spyre_fuzz --count 3000 --seed 0 --out /tmp/fuzz-findings --json /tmp/fuzz.json
    python -m spyre_fuzz --replay /tmp/fuzz-findings/internal/001-....mlir

Seeds are the KTIR corpus (`../shared/corpus/ktir`, when present), our test
kernels (`test/unit/kernels`) and `examples/`, each whole and, for files with
several functions, each function on its own (with the aliases and callees it
needs). Input `i` of seed `S` is a function of `(S, i)` and the seed kernels
only: the same input comes back whatever `--count`, so a finding reproduces
from its number (`--show N`).

Mutations are textual, one to three per input: delete/duplicate/swap a token
or a line, move a line up or down (use before def), change an integer
literal (0, -1, near INT_MAX, huge), a float literal, an element type
(`f16` -> `f32`, ...), a tensor/memref shape, rename an SSA value (to one in
scope, a later one, an undefined one; redefine one), drop a bracket, insert
garbage bytes (invalid UTF-8 included), change an op name to a sibling op,
set an affine divisor to 0, nest regions or parentheses deeply, duplicate a
function (symbol redefinition), truncate, swap keywords, drop an attribute
entry, drop a terminator, rename a symbol.

Every input runs in a worker process (a pool of `--jobs`, each input with a
`--timeout`), through the API as a user would drive it (its bytes decoded as
UTF-8 with replacement, as `spyre-opt` reads a file):

1. `parse`: `parse_text(text)` (parse + verify the text, on a deep stack, as `spyre_mlir.parse` does);
2. `pipeline`: `PassManager.parse(PIPELINE).run(module)` (clean-up and the
   lowering to the schedule IR), then
   printing the result (as `spyre-opt` does) and reading the print back;
3. `interpret`: every function whose parameters are index / integer / float
   / small static tensors / `!ktdp.runtime_arg`, with seeded small arguments
   (an `index` parameter that is the base of a memory view gets a random
   array of the view's size, placed in HBM; others get small integers) and
   seeded interpreter options;
4. `spatial`: for each function of 3., `ktir-to-spatial` specialized for the
   plan's scalars, and the spatial program run on the same arguments: where
   the source runs, the program must run and give the same outputs
   (translation validation; a mismatch or a failing run is `internal`).

A stage does not redo what an earlier stage of the same input computed: the
text is parsed and verified once (later stages take clones of that module,
taken before the pipeline changes it in place), a module just verified is not
verified again before a pass manager or the interpreter takes it, and the
spatial stage reuses the interpret stage's run of a function when that ran
the source itself with the spatial stage's options. The verdicts are those of
doing it all again; inputs nesting thousands of regions no longer pay for it.

Each stage's outcome is one of: `accepted`; `located` (a `DiagnosticError`
with a `file:line:col`); `unlocated` (one without); `internal` (any other
exception, or a `DiagnosticError` whose message starts with "internal
error"); `hang` (the input exceeded the timeout: the worker is killed after a
Python stack dump of where it was); `crash` (the worker died). An input's
outcome is its worst stage. `internal`, `hang` and `crash` are bugs.

For inputs that use only upstream dialects (no `ktdp.` / `spyre.`), the
parse+verify verdict is compared with upstream MLIR's (`iree-opt`, without
`--allow-unregistered-dialect`: `spyre_mlir.parse` rejects unregistered ops
too, so both sides are strict), but only for mutants of seeds both sides
accept. Disagreements are bugs of parity (either side may be the one to fix);
iree-opt crashing or hanging is counted apart and not compared.

The report is a table (stdout) and JSON (`--json FILE`); up to `--examples`
inputs per distinct finding are reduced (whole functions, then chunks of
lines, within a time budget, keeping the same finding; not for stack or
memory exhaustion) and written to `--out DIR` with a `.txt` that says what
happened, how the input was made, and how to replay it (`--replay FILE`
reruns one file in-process with tracebacks, stack dump on a hang).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


def _checkout() -> Path:
    """The source checkout whose kernels seed the fuzzer by default: the one
    this module lives in, else the current directory (an installed package
    holds no test kernels)."""
    here = Path(__file__).resolve().parents[3]  # test/fuzz/spyre_fuzz/
    for root in (here, Path.cwd()):
        if (root / "test" / "unit" / "kernels").is_dir():
            return root
    return here


REPO = _checkout()
CORPUS = REPO.parent / "shared" / "corpus" / "ktir"

STAGES = ("parse", "pipeline", "interpret", "spatial")
CATEGORIES = ("accepted", "located", "unlocated", "internal", "hang", "crash")
BAD = ("internal", "hang", "crash")
SEVERITY = {c: i for i, c in enumerate(CATEGORIES)}
LABELS = {
    "accepted": "accepted",
    "located": "located user error",
    "unlocated": "unlocated user error",
    "internal": "internal error",
    "hang": "hang (timeout)",
    "crash": "crash (worker died)",
    "skipped": "not run",
}

# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    name: str
    text: str


class SeedError(ValueError):
    """No seed kernels to mutate, or a --seeds path that is not one (a usage error: exit 2)."""


def default_seed_paths() -> list[Path]:
    """The corpus (when present), test/unit/kernels and examples, sorted; none outside a
    checkout (an installed package holds no kernels)."""
    paths = sorted(CORPUS.glob("*.mlir")) if CORPUS.is_dir() else []
    paths += sorted((REPO / "test" / "unit" / "kernels").glob("*.mlir"))
    paths += sorted((REPO / "examples").glob("*.mlir"))
    return paths


def seed_files(paths: Iterable[Path | str]) -> list[Path]:
    """The seed kernel files named by `paths`: a file as it is, a directory's `*.mlir`
    files (recursively, sorted). A missing path or a directory without kernels is a SeedError."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(path.rglob("*.mlir"))
            if not found:
                raise SeedError(f"no seed kernels (*.mlir) in directory '{path}'")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise SeedError(f"seed kernel '{path}': no such file or directory")
    return files


NO_SEEDS = (
    "no seed kernels: this is not a spyre-mlir checkout, and the installed package holds no kernels; "
    "give them with --seeds FILE_OR_DIR... (e.g. --seeds path/to/spyre-mlir/test/unit/kernels), "
    "or run from a checkout"
)


def load_seeds(paths: Iterable[Path | str] | None = None) -> list[Seed]:
    """Every file whole, plus each function of a multi-function file alone. `paths` are
    files or directories (default: `default_seed_paths()`); no kernel at all is a SeedError."""
    seeds: list[Seed] = []
    files = default_seed_paths() if paths is None else seed_files(paths)
    if not files:
        raise SeedError(NO_SEEDS)
    for path in files:
        path = Path(path)
        text = path.read_text(encoding="utf-8", errors="replace")
        name = f"{path.parent.name}/{path.name}"
        seeds.append(Seed(name, text))
        functions = split_functions(text)
        if len(functions) > 1:
            seeds.extend(Seed(f"{name}@{fn}", body) for fn, body in functions)
    return seeds


_FUNC_START = re.compile(r"^[ \t]*func\.func\b", re.MULTILINE)
_ALIAS_LINE = re.compile(r"^[ \t]*[#!][\w$.\-]+[ \t]*=.*$", re.MULTILINE)
_OPENERS = {"{": "}", "(": ")", "[": "]"}


def _skip_string(text: str, i: int) -> int:
    """Index after the string literal starting at text[i] == '"'."""
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] in '"\n':
            return j + 1
        j += 1
    return j


def _match_close(text: str, i: int) -> int:
    """Index after the bracket closing the one at text[i] (-1: unbalanced)."""
    stack = [_OPENERS[text[i]]]
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == '"':
            j = _skip_string(text, j)
            continue
        if text.startswith("//", j):
            nl = text.find("\n", j)
            if nl < 0:
                return -1
            j = nl
        elif c in _OPENERS:
            stack.append(_OPENERS[c])
        elif c in ")]}" and c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
        j += 1
    return -1


def function_spans(text: str) -> list[tuple[str, int, int]]:
    """(symbol, start, end) of each `func.func` (start at its line's start)."""
    spans: list[tuple[str, int, int]] = []
    starts = [m.start() for m in _FUNC_START.finditer(text)]
    for k, start in enumerate(starts):
        if spans and start < spans[-1][2]:
            continue  # inside the previous one (should not happen)
        name_m = re.compile(r"@([\w$.\-]+)").search(text, start)
        name = name_m.group(1) if name_m else f"anon{k}"
        next_start = starts[k + 1] if k + 1 < len(starts) else len(text)
        j = text.find("func.func", start) + len("func.func")
        end = -1
        after_attributes = False
        while j < len(text):
            c = text[j]
            if c == '"':
                j = _skip_string(text, j)
                continue
            if text.startswith("//", j):
                nl = text.find("\n", j)
                j = len(text) if nl < 0 else nl
                continue
            if text.startswith("attributes", j):
                after_attributes = True
                j += len("attributes")
                continue
            if c in "([":
                close = _match_close(text, j)
                if close < 0:
                    break
                j = close
                continue
            if c == "{":
                if j >= next_start:
                    break
                close = _match_close(text, j)
                if close < 0:
                    break
                if after_attributes:
                    after_attributes = False
                    j = close
                    continue
                end = close
                break
            j += 1
        if end < 0:  # a declaration (or unbalanced): to the end of its line
            nl = text.find("\n", start)
            end = len(text) if nl < 0 else nl
        if end < len(text) and text[end] == "\n":
            end += 1
        spans.append((name, start, end))
    return spans


def split_functions(text: str) -> list[tuple[str, str]]:
    """Each function alone, with the file's alias definitions and its callees."""
    spans = function_spans(text)
    by_name = {name: text[s:e] for name, s, e in spans}
    aliases = "".join(m.group(0) + "\n" for m in _ALIAS_LINE.finditer(text))
    out = []
    for name, _, _ in spans:
        wanted = [name]
        k = 0
        while k < len(wanted):
            for ref in re.findall(r"@([\w$.\-]+)", by_name[wanted[k]]):
                if ref in by_name and ref not in wanted:
                    wanted.append(ref)
            k += 1
        body = "\n".join(by_name[n] for n in wanted)
        out.append((name, (aliases + "\n" if aliases else "") + body))
    return out


# ---------------------------------------------------------------------------
# Tokens and mutations
# ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
  (?P<comment>//[^\n]*)
| (?P<string>"(?:[^"\\\n]|\\.)*")
| (?P<ssa>%[A-Za-z0-9_$.\-]+(?:\#\d+)?)
| (?P<block>\^[A-Za-z0-9_$.\-]+)
| (?P<symbol>@[A-Za-z0-9_$.\-]+)
| (?P<attr>\#[A-Za-z_][A-Za-z0-9_$.\-]*)
| (?P<type>![A-Za-z_][A-Za-z0-9_$.\-]*)
| (?P<hex>0x[0-9A-Fa-f]+)
| (?P<float>\d+\.\d*(?:[eE][-+]?\d+)?)
| (?P<int>\d+)
| (?P<ident>[A-Za-z_][A-Za-z0-9_$.]*)
| (?P<arrow>->)
| (?P<punct>\S)
""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Tok:
    kind: str
    start: int
    end: int
    text: str


def tokenize(text: str) -> list[Tok]:
    """MLIR-ish tokens, comments excluded."""
    return [
        Tok(m.lastgroup or "punct", m.start(), m.end(), m.group(0))
        for m in _TOKEN.finditer(text)
        if m.lastgroup != "comment"
    ]


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{col}"


def _short(s: str, n: int = 40) -> str:
    s = s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return repr(s if len(s) <= n else s[: n - 3] + "...")


def _code_lines(text: str) -> tuple[list[str], list[int]]:
    lines = text.splitlines(keepends=True)
    code = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")]
    return lines, code


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


Mutation = tuple[str, str]  # (description, new text)


def m_delete_token(text: str, rng: random.Random) -> Mutation | None:
    toks = tokenize(text)
    if not toks:
        return None
    t = rng.choice(toks)
    return f"delete token {_short(t.text)} at {_where(text, t.start)}", _replace(text, t.start, t.end, "")


def m_duplicate_token(text: str, rng: random.Random) -> Mutation | None:
    toks = tokenize(text)
    if not toks:
        return None
    t = rng.choice(toks)
    return f"duplicate token {_short(t.text)} at {_where(text, t.start)}", _replace(
        text, t.start, t.end, t.text + " " + t.text
    )


def m_swap_tokens(text: str, rng: random.Random) -> Mutation | None:
    toks = tokenize(text)
    if len(toks) < 2:
        return None
    i = rng.randrange(len(toks) - 1)
    j = i + 1 if rng.random() < 0.6 else rng.randrange(len(toks))
    a, b = sorted((toks[i], toks[j]), key=lambda t: t.start)
    if a.text == b.text:
        return None
    new = text[: a.start] + b.text + text[a.end : b.start] + a.text + text[b.end :]
    return (
        f"swap tokens {_short(a.text)} at {_where(text, a.start)} and {_short(b.text)} at {_where(text, b.start)}",
        new,
    )


def m_delete_line(text: str, rng: random.Random) -> Mutation | None:
    lines, code = _code_lines(text)
    if not code:
        return None
    i = rng.choice(code)
    return f"delete line {i + 1}: {_short(lines[i].strip())}", "".join(lines[:i] + lines[i + 1 :])


def m_duplicate_line(text: str, rng: random.Random) -> Mutation | None:
    lines, code = _code_lines(text)
    if not code:
        return None
    i = rng.choice(code)
    line = lines[i] if lines[i].endswith("\n") else lines[i] + "\n"
    return f"duplicate line {i + 1}: {_short(lines[i].strip())}", "".join(lines[:i] + [line] + lines[i:])


def m_swap_lines(text: str, rng: random.Random) -> Mutation | None:
    lines, code = _code_lines(text)
    if len(code) < 2:
        return None
    k = rng.randrange(len(code) - 1)
    i, j = (code[k], code[k + 1]) if rng.random() < 0.6 else sorted(rng.sample(code, 2))
    lines = [x if x.endswith("\n") else x + "\n" for x in lines]
    lines[i], lines[j] = lines[j], lines[i]
    return f"swap lines {i + 1} and {j + 1}", "".join(lines)


def _move_line(text: str, rng: random.Random, up: bool) -> Mutation | None:
    lines, code = _code_lines(text)
    if len(code) < 2:
        return None
    k = rng.randrange(1, len(code)) if up else rng.randrange(len(code) - 1)
    distance = rng.choice([1, 1, 2, 3, 5, 10])
    target = code[max(0, k - distance)] if up else code[min(len(code) - 1, k + distance)]
    i = code[k]
    lines = [x if x.endswith("\n") else x + "\n" for x in lines]
    line = lines.pop(i)
    if not up:
        target -= 1
        lines.insert(target + 1, line)
    else:
        lines.insert(target, line)
    return f"move line {i + 1} {'up' if up else 'down'} {distance} code line(s): {_short(line.strip())}", "".join(lines)


def m_move_line_up(text: str, rng: random.Random) -> Mutation | None:
    return _move_line(text, rng, up=True)


def m_move_line_down(text: str, rng: random.Random) -> Mutation | None:
    return _move_line(text, rng, up=False)


INT_VALUES = [
    "0", "-1", "1", "2", "127", "2147483647", "2147483648", "4294967295", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551616",
    "340282366920938463463374607431768211457", "99999999999999999999999999999999999999999999",
]  # fmt: skip


def m_int_literal(text: str, rng: random.Random) -> Mutation | None:
    toks = [t for t in tokenize(text) if t.kind == "int"]
    if not toks:
        return None
    t = rng.choice(toks)
    n = int(t.text)
    value = rng.choice(INT_VALUES + [str(n + 1), str(max(n - 1, 0)), str(n * 1024), str(-n)])
    if value == t.text:
        value = "0" if t.text != "0" else "-1"
    return f"integer {t.text} -> {value} at {_where(text, t.start)}", _replace(text, t.start, t.end, value)


FLOAT_VALUES = [
    "0.0", "-0.0", "1.0e308", "1.0e400", "-1.0e400", "nan", "inf", "0x7FC00000", "0xFFFF", "0x7C00",
    "0xFFFFFFFFFFFFFFFFFF", "1.0e-45", "3.4028235e38", "65504.0", "65520.0", "0x", "1.", "1.0e",
]  # fmt: skip


def m_float_literal(text: str, rng: random.Random) -> Mutation | None:
    toks = [t for t in tokenize(text) if t.kind in ("float", "hex")]
    if not toks:
        return None
    t = rng.choice(toks)
    value = rng.choice(FLOAT_VALUES)
    return f"float {t.text} -> {value} at {_where(text, t.start)}", _replace(text, t.start, t.end, value)


ELEMENT_TYPES = ["f16", "f32", "bf16", "f64", "i1", "i8", "i16", "i32", "i64", "index", "f8E4M3FN", "ui32", "si8"]
_ELEM = re.compile(
    r"(?:(?<![A-Za-z0-9_$.#!%@])|(?<=[0-9?]x))(f16|f32|bf16|f64|i1|i8|i16|i32|i64|index)(?![A-Za-z0-9_$.])"
)


def _in_comment(text: str, offset: int) -> bool:
    start = text.rfind("\n", 0, offset) + 1
    return "//" in text[start:offset]


def m_element_type(text: str, rng: random.Random) -> Mutation | None:
    found = [m for m in _ELEM.finditer(text) if not _in_comment(text, m.start())]
    if not found:
        return None
    m = rng.choice(found)
    old = m.group(1)
    new = rng.choice([t for t in ELEMENT_TYPES if t != old])
    scope = rng.random()
    if scope < 0.5:
        return f"type {old} -> {new} at {_where(text, m.start())}", _replace(text, m.start(), m.end(), new)
    if scope < 0.8:
        a = text.rfind("\n", 0, m.start()) + 1
        b = text.find("\n", m.end())
        b = len(text) if b < 0 else b
        line = _ELEM.sub(lambda x: new if x.group(1) == old else x.group(0), text[a:b])
        return f"type {old} -> {new} in line {_where(text, a).split(':')[0]}", text[:a] + line + text[b:]
    return f"type {old} -> {new} everywhere", _ELEM.sub(lambda x: new if x.group(1) == old else x.group(0), text)


_SHAPED = re.compile(r"\b(tensor|memref|vector)<((?:(?:\d+|\?)x)*)")
DIM_VALUES = ["0", "1", "2", "3", "7", "1000", "?", "2147483648", "1099511627776", "9223372036854775807"]


def m_shape(text: str, rng: random.Random) -> Mutation | None:
    found = [m for m in _SHAPED.finditer(text) if not _in_comment(text, m.start())]
    if not found:
        return None
    m = rng.choice(found)
    dims = [d for d in m.group(2).split("x") if d]
    how = rng.random()
    new_dims = list(dims)
    if dims and how < 0.55:
        k = rng.randrange(len(dims))
        new_dims[k] = rng.choice([d for d in DIM_VALUES if d != dims[k]])
        what = f"dim {k} {dims[k]} -> {new_dims[k]}"
    elif dims and how < 0.7:
        k = rng.randrange(len(dims))
        del new_dims[k]
        what = f"drop dim {k}"
    elif how < 0.9:
        k = rng.randrange(len(dims) + 1)
        new_dims.insert(k, rng.choice(["1", "2", "4", "?"]))
        what = f"insert dim {new_dims[k]} at {k}"
    else:
        new_dims = []
        what = "rank 0"
    new = "".join(d + "x" for d in new_dims)
    return f"{m.group(1)} shape {what} at {_where(text, m.start())}", _replace(text, m.start(2), m.end(2), new)


def m_ssa_rename(text: str, rng: random.Random) -> Mutation | None:
    toks = [t for t in tokenize(text) if t.kind == "ssa"]
    if len(toks) < 2:
        return None
    spans = function_spans(text)
    k = rng.randrange(len(toks))
    t = toks[k]
    lo, hi = 0, len(text)
    for _, s, e in spans:
        if s <= t.start < e:
            lo, hi = s, e
    earlier = sorted({x.text for x in toks[:k] if x.start >= lo and x.text != t.text})
    first_seen: dict[str, int] = {}
    for x in toks:
        first_seen.setdefault(x.text, x.start)
    later = sorted({x.text for x in toks[k + 1 :] if x.start < hi and first_seen[x.text] > t.start})
    how = rng.random()
    if earlier and how < 0.45:
        new, what = rng.choice(earlier), "an earlier value"
    elif later and how < 0.7:
        new, what = rng.choice(later), "a later value"
    elif how < 0.85:
        new, what = f"%undefined{rng.randrange(100)}", "an undefined value"
    else:
        new, what = t.text.split("#")[0] + "#7", "a result number out of range"
    return f"rename {t.text} at {_where(text, t.start)} to {new} ({what})", _replace(text, t.start, t.end, new)


_DEF_LINE = re.compile(r"^[ \t]*(%[\w.$\-]+)(?:[ \t]*,[ \t]*%[\w.$\-]+)*(?::\d+)?[ \t]*=", re.MULTILINE)


def m_redefine(text: str, rng: random.Random) -> Mutation | None:
    defs = list(_DEF_LINE.finditer(text))
    if len(defs) < 2:
        return None
    k = rng.randrange(1, len(defs))
    m = defs[k]
    other = rng.choice(defs[:k]).group(1)
    if other == m.group(1):
        return None
    return f"redefine {other} at {_where(text, m.start(1))} (was {m.group(1)})", _replace(
        text, m.start(1), m.end(1), other
    )


def m_drop_bracket(text: str, rng: random.Random) -> Mutation | None:
    toks = tokenize(text)
    closers = [t for t in toks if t.text == "}"]
    others = [t for t in toks if t.text in ("{", ")", "(", "]", "[", ">", "<")]
    if rng.random() < 0.2:
        lines, code = _code_lines(text)
        if code:
            i = rng.choice(code)
            return f"insert a stray '}}' before line {i + 1}", "".join(lines[:i] + ["}\n"] + lines[i:])
    pool = closers if closers and (rng.random() < 0.7 or not others) else others
    if not pool:
        return None
    t = rng.choice(pool)
    return f"drop {t.text!r} at {_where(text, t.start)}", _replace(text, t.start, t.end, "")


GARBAGE = [
    b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc", b"\xed\xa0\x80",
    b"\x00", b"\x01\x02\x7f", b"\xef\xbb\xbf", "\u00e9".encode(), "\u202e".encode(), "\U0001f600".encode(),
    b"\r", b"\x0c", b"\t", b"\\", b"\"", b"'", b"`", b"$", b"?", b"...", b"::", b"\x1b[0m",
]  # fmt: skip


def m_garbage(text: str, rng: random.Random) -> Mutation | None:
    raw = rng.choice(GARBAGE) if rng.random() < 0.75 else rng.randbytes(rng.randrange(1, 9))
    junk = raw.decode("utf-8", "surrogateescape")
    if rng.random() < 0.3:
        toks = tokenize(text)
        if toks:
            t = rng.choice(toks)
            return f"replace token {_short(t.text)} at {_where(text, t.start)} with bytes {raw!r}", _replace(
                text, t.start, t.end, junk
            )
    pos = rng.randrange(len(text) + 1)
    return f"insert bytes {raw!r} at {_where(text, pos)}", _replace(text, pos, pos, junk)


SIBLINGS = [
    ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
     "arith.minnumf", "arith.remf", "arith.addi", "arith.powf"],
    ["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
     "arith.floordivsi", "arith.ceildivsi", "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi",
     "arith.shrui", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.addf"],
    ["arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.index_cast",
     "arith.index_castui", "arith.bitcast", "arith.extsi", "arith.extui", "arith.trunci"],
    ["arith.cmpi", "arith.cmpf"],
    ["arith.negf", "math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "math.tanh",
     "math.absf", "math.sin", "math.cos", "math.floor", "math.ceil", "math.erf", "math.absi"],
    ["arith.constant", "arith.select"],
    ["tensor.extract_slice", "tensor.insert_slice", "tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape",
     "tensor.cast", "tensor.pad"],
    ["tensor.splat", "tensor.empty", "tensor.extract", "tensor.insert", "tensor.from_elements", "tensor.dim",
     "tensor.concat", "tensor.generate"],
    ["linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max", "linalg.min", "linalg.exp",
     "linalg.matmul", "linalg.generic", "linalg.reduce", "linalg.fill", "linalg.broadcast", "linalg.transpose",
     "linalg.map", "linalg.copy"],
    ["linalg.yield", "scf.yield", "func.return", "tensor.yield", "scf.condition", "ktdp.region_terminator"],
    ["scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.forall", "scf.parallel"],
    ["ktdp.load", "ktdp.store"],
    ["ktdp.construct_memory_view", "ktdp.construct_distributed_memory_view", "ktdp.construct_access_tile",
     "ktdp.construct_indirect_access_tile", "ktdp.get_compute_tile_id", "ktdp.runtime_arg_extract"],
    ["func.func", "func.call", "func.return"],
]  # fmt: skip
_OP_NAME = re.compile(r"^(arith|math|tensor|linalg|scf|func|ktdp|spyre|memref|affine)\.[a-z_]+$")


def m_op_sibling(text: str, rng: random.Random) -> Mutation | None:
    toks = [t for t in tokenize(text) if t.kind == "ident" and _OP_NAME.match(t.text)]
    if not toks:
        return None
    t = rng.choice(toks)
    groups = [g for g in SIBLINGS if t.text in g]
    if groups and rng.random() < 0.85:
        new = rng.choice([n for n in rng.choice(groups) if n != t.text])
    elif rng.random() < 0.6:
        dialect = t.text.split(".")[0]
        names = sorted({x.text for x in toks if x.text.startswith(dialect + ".") and x.text != t.text})
        if not names:
            return None
        new = rng.choice(names)
    else:
        new = t.text.split(".")[0] + ".bogus_op"
    return f"op {t.text} -> {new} at {_where(text, t.start)}", _replace(text, t.start, t.end, new)


_DIVISOR = re.compile(r"\b(floordiv|ceildiv|mod)(\s+)(-?\d+)")
_AFFINE = re.compile(r"affine_(map|set)<")
_ACCESS = re.compile(r"ktdp\.construct_(?:indirect_)?access_tile\s+%[\w.$\-]+\[")


def m_affine_div_zero(text: str, rng: random.Random) -> Mutation | None:
    divisors = list(_DIVISOR.finditer(text))
    value = rng.choice(["0", "0", "0", "-1", "-4"])
    if divisors and rng.random() < 0.5:
        m = rng.choice(divisors)
        return f"{m.group(1)} divisor {m.group(3)} -> {value} at {_where(text, m.start(3))}", _replace(
            text, m.start(3), m.end(3), value
        )
    sites: list[int] = []
    for m in _AFFINE.finditer(text):
        close = text.find(">", m.end())
        body = text[m.end() : close]
        split = body.find("->") if m.group(1) == "map" else body.find(":")
        if split < 0:
            continue
        for d in re.finditer(r"\b[ds]\d+\b", body[split:]):
            sites.append(m.end() + split + d.end())
    for m in _ACCESS.finditer(text):
        close = text.find("]", m.end())
        for v in re.finditer(r"%[\w.$\-]+", text[m.end() : close]):
            sites.append(m.end() + v.end())
    if not sites:
        return None
    pos = rng.choice(sites)
    op = rng.choice(["floordiv", "ceildiv", "mod"])
    return f"insert '{op} {value}' at {_where(text, pos)}", _replace(text, pos, pos, f" {op} {value}")


_RETURN_LINE = re.compile(r"^([ \t]*)(?:func\.)?return\b", re.MULTILINE)


def m_deep_nesting(text: str, rng: random.Random) -> Mutation | None:
    depth = rng.choice([16, 64, 256, 1000, 3000])
    if rng.random() < 0.6:
        returns = list(_RETURN_LINE.finditer(text))
        if not returns:
            return None
        m = rng.choice(returns)
        nest = "scf.execute_region {\n" * depth + "scf.yield\n}\n" * depth
        return f"insert {depth} nested scf.execute_region before {_where(text, m.start())}", _replace(
            text, m.start(), m.start(), nest
        )
    sites = []
    for m in _AFFINE.finditer(text):
        close = text.find(">", m.end())
        body = text[m.end() : close]
        split = body.find("->") if m.group(1) == "map" else body.find(":")
        if split >= 0:
            sites += [
                (m.end() + split + d.start(), m.end() + split + d.end())
                for d in re.finditer(r"\b[ds]\d+\b", body[split:])
            ]
    if not sites:
        return None
    a, b = rng.choice(sites)
    wrapped = "(" * depth + text[a:b] + ")" * depth
    return f"wrap {text[a:b]} in {depth} parentheses at {_where(text, a)}", _replace(text, a, b, wrapped)


def m_duplicate_function(text: str, rng: random.Random) -> Mutation | None:
    spans = function_spans(text)
    if not spans:
        return None
    name, s, e = rng.choice(spans)
    copy = text[s:e] if text[s:e].endswith("\n") else text[s:e] + "\n"
    if rng.random() < 0.3:
        copy = copy.replace(f"@{name}", f"@{name}_copy", 1)
        return f"duplicate function @{name} as @{name}_copy", text[:e] + copy + text[e:]
    return f"duplicate function @{name} (symbol redefinition)", text[:e] + copy + text[e:]


def m_truncate(text: str, rng: random.Random) -> Mutation | None:
    toks = tokenize(text)
    if not toks:
        return None
    t = rng.choice(toks)
    return f"truncate after {_short(t.text)} at {_where(text, t.start)}", text[: t.end]


def m_keyword_swap(text: str, rng: random.Random) -> Mutation | None:
    toks = [t for t in tokenize(text) if t.kind in ("ident", "attr", "type") and not _OP_NAME.match(t.text)]
    names = sorted({t.text for t in toks})
    if len(names) < 2:
        return None
    t = rng.choice(toks)
    new = rng.choice([n for n in names if n != t.text])
    return f"word {t.text} -> {new} at {_where(text, t.start)}", _replace(text, t.start, t.end, new)


_ATTR_ENTRY = re.compile(r"(?<![%\w])([a-z_][a-z_0-9]*)\s*=\s*(?!=)")


def m_drop_attribute(text: str, rng: random.Random) -> Mutation | None:
    found = [m for m in _ATTR_ENTRY.finditer(text) if not _in_comment(text, m.start())]
    if not found:
        return None
    m = rng.choice(found)
    depth = 0
    j = m.end()
    pairs = {"<": ">", "(": ")", "[": "]", "{": "}"}
    while j < len(text):
        c = text[j]
        if c in pairs:
            depth += 1
        elif c in ">)]}":
            if text[j - 1 : j + 1] == "->":
                j += 1
                continue
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            j += 1
            break
        j += 1
    return f"drop attribute entry {m.group(1)} at {_where(text, m.start())}", _replace(text, m.start(), j, "")


_TERMINATOR = re.compile(
    r"^[ \t]*(?:scf\.yield|linalg\.yield|tensor\.yield|(?:func\.)?return|ktdp\.region_terminator)\b.*\n?", re.MULTILINE
)


def m_drop_terminator(text: str, rng: random.Random) -> Mutation | None:
    found = list(_TERMINATOR.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    return f"drop terminator {_short(m.group(0).strip())} at {_where(text, m.start())}", _replace(
        text, m.start(), m.end(), ""
    )


def m_symbol(text: str, rng: random.Random) -> Mutation | None:
    toks = [t for t in tokenize(text) if t.kind == "symbol"]
    if not toks:
        return None
    t = rng.choice(toks)
    names = sorted({x.text for x in toks if x.text != t.text})
    new = rng.choice(names) if names and rng.random() < 0.5 else "@missing_symbol"
    return f"symbol {t.text} -> {new} at {_where(text, t.start)}", _replace(text, t.start, t.end, new)


MUTATORS: dict[str, Callable[[str, random.Random], Mutation | None]] = {
    "delete-token": m_delete_token,
    "duplicate-token": m_duplicate_token,
    "swap-tokens": m_swap_tokens,
    "delete-line": m_delete_line,
    "duplicate-line": m_duplicate_line,
    "swap-lines": m_swap_lines,
    "move-line-up": m_move_line_up,
    "move-line-down": m_move_line_down,
    "int-literal": m_int_literal,
    "float-literal": m_float_literal,
    "element-type": m_element_type,
    "shape": m_shape,
    "ssa-rename": m_ssa_rename,
    "ssa-redefine": m_redefine,
    "drop-bracket": m_drop_bracket,
    "garbage": m_garbage,
    "op-sibling": m_op_sibling,
    "affine-div-zero": m_affine_div_zero,
    "deep-nesting": m_deep_nesting,
    "duplicate-function": m_duplicate_function,
    "truncate": m_truncate,
    "keyword-swap": m_keyword_swap,
    "drop-attribute": m_drop_attribute,
    "drop-terminator": m_drop_terminator,
    "symbol": m_symbol,
}
"""Every mutation, by name (`--mutators` selects a subset)."""

WEIGHTS = {
    "int-literal": 3,
    "element-type": 2,
    "op-sibling": 2,
    "affine-div-zero": 2,
    "move-line-up": 2,
    "ssa-rename": 2,
}
"""Relative frequency (default 1): more of the mutations that often still parse,
so that the pipeline and the interpreter see mutated kernels too."""


@dataclass
class FuzzInput:
    """One generated input: `data` is `seed` after `mutations`."""

    index: int
    seed: str
    mutations: list[str]
    data: bytes

    @property
    def key(self) -> str:
        return f"{self.index:05d}"

    @property
    def text(self) -> str:
        """As the API sees the bytes: UTF-8, invalid bytes replaced (as `spyre-opt` reads files)."""
        return self.data.decode("utf-8", "replace")


def mutate(seed: Seed, rng: random.Random, mutators: Sequence[str] | None = None) -> tuple[list[str], str]:
    names = sorted(mutators or MUTATORS)
    n = 1 + (rng.random() < 0.2) + (rng.random() < 0.05)
    text = seed.text
    done: list[str] = []
    attempts = 0
    weights = [WEIGHTS.get(name, 1) for name in names]
    while len(done) < n and attempts < 20:
        attempts += 1
        name = rng.choices(names, weights)[0]
        result = MUTATORS[name](text, rng)
        if result is None or result[1] == text:
            continue
        done.append(f"{name}: {result[0]}")
        text = result[1]
    return done, text


def generate(
    count: int,
    seed: int = 0,
    seeds: Sequence[Seed] | None = None,
    start: int = 0,
    mutators: Sequence[str] | None = None,
) -> list[FuzzInput]:
    """Inputs `start .. start + count - 1` of fuzz seed `seed` (each depends on its index only)."""
    seeds = list(seeds if seeds is not None else load_seeds())
    if not seeds:
        raise SeedError(NO_SEEDS)
    out = []
    for i in range(start, start + count):
        rng = random.Random(f"spyre-mlir-fuzz:{seed}:{i}")
        s = rng.choice(seeds)
        done, text = mutate(s, rng, mutators)
        out.append(FuzzInput(i, s.name, done, text.encode("utf-8", "surrogateescape")))
    return out


def upstream_only(text: str) -> bool:
    """No op, type or attribute of our dialects (comments aside)."""
    code = re.sub(r"//[^\n]*", "", text)
    return re.search(r"(?<![\w$.])(ktdp|spyre)\.", code) is None


# ---------------------------------------------------------------------------
# Running one input (in a worker)
# ---------------------------------------------------------------------------

MAX_ARRAY_ELEMENTS = 1 << 23
MAX_FUNCTIONS = 4
_OURS = str(REPO)


def _frames(tb, keep: int = 10) -> tuple[list[str], int]:
    """The innermost `keep` frames (paths shortened), and the stack depth."""
    import traceback

    out = []
    for fs in traceback.extract_tb(tb):
        path = fs.filename
        if path.startswith(_OURS):
            path = path[len(_OURS) + 1 :]
        elif "/site-packages/" in path:
            path = path.split("/site-packages/", 1)[1]
        out.append(f"{path}:{fs.lineno} in {fs.name}")
    return out[-keep:], len(out)


def _root_cause(exc: BaseException) -> BaseException | None:
    """The innermost exception chained to `exc` (None when there is none)."""
    seen = {id(exc)}
    root = None
    cur = exc.__cause__ or exc.__context__
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        root = cur
        cur = cur.__cause__ or cur.__context__
    return root


INTERPRET_TIMEOUT = 4.0
"""Seconds the interpreter runs one function before its own timeout stops it
(a located error naming the loop); below the worker's timeout, so that only a
hang the interpreter cannot see counts as a hang."""


def parse_text(text: str):
    """Parse and verify MLIR text (never a file name: a short mutant is text too)."""
    from spyre_mlir import ir
    from spyre_mlir.deep import call_deep

    def work():
        module = ir.parse_module(text, "<fuzz>")
        ir.verify(module)
        return module

    return call_deep(work)


def clone_module(module):
    """A copy of a parsed module (xDSL's `clone` recurses per nested region: on a deep stack).
    Cheaper than parsing and verifying the text again, and as valid."""
    from spyre_mlir.deep import call_deep

    return call_deep(module.clone)


_PASS_LISTS: dict[tuple[str, str], list] = {}


def pass_manager(spec: str, *, pipeline: bool = False):
    """`PassManager.parse(spec)` (a pipeline name: `from_pipeline`) for a module
    the caller has just verified (`verify_input=False`; every pass's output is
    still verified). The passes are built once per worker and copied: building
    them reads their option docs from source, which costs about a second."""
    import copy

    from spyre_mlir.passes.pipelines import PassManager

    key = ("pipeline" if pipeline else "passes", spec)
    passes = _PASS_LISTS.get(key)
    if passes is None:
        built = PassManager.from_pipeline(spec) if pipeline else PassManager.parse(spec)
        passes = _PASS_LISTS[key] = built.passes
    return PassManager(copy.deepcopy(passes), verify_input=False)


def verified_interpreter(module, options: dict):
    """An interpreter of `module`, which the caller has verified (`ir.verify`,
    as the interpreter would: the parse stage, or the pass manager after the
    last pass): only the check the interpreter adds (ktdp-check-inter-tile) is
    made again, with the same outcome as a verifying interpreter's."""
    from spyre_mlir.deep import call_deep
    from spyre_mlir.interpreter import Interpreter, InterpreterOptions
    from spyre_mlir.passes.frontend.ktdp_check_inter_tile import check_inter_tile

    call_deep(check_inter_tile, module)
    return Interpreter(module, InterpreterOptions(**options, verify=False))


def _copy_args(args: dict) -> dict:
    import numpy as np

    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def classify(exc: BaseException) -> dict:
    """The outcome of a stage that raised `exc`."""
    from spyre_mlir.diagnostics import DiagnosticError

    if isinstance(exc, DiagnosticError):
        d = exc.diagnostic
        message = d.message
        if message.startswith("internal error"):
            category = "internal"
        else:
            category = "located" if d.location is not None else "unlocated"
        out = {
            "category": category,
            "type": "DiagnosticError",
            "message": _first_line(message),
            "location": str(d.location) if d.location else None,
        }
        root = _root_cause(exc)
        if category != "located" and root is not None:
            out["cause"] = f"{type(root).__name__}: {_first_line(str(root), 200)}"
            out["frames"], out["depth"] = _frames(root.__traceback__)
        return out
    frames, depth = _frames(exc.__traceback__)
    return {
        "category": "internal",
        "type": type(exc).__name__,
        "message": _first_line(str(exc)) or type(exc).__name__,
        "location": None,
        "frames": frames,
        "depth": depth,
    }


def _first_line(s: str, limit: int = 400) -> str:
    s = s.strip().splitlines()[0] if s.strip() else ""
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _accepted(**extra) -> dict:
    return {"category": "accepted", **extra}


def _text_seed(text: str, extra: str = "") -> int:
    return zlib.crc32((text + "\0" + extra).encode("utf-8", "surrogateescape"))


def interpret_plans(module) -> list[dict]:
    """Functions to run, with arguments and options seeded by each function's name and type."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, MemRefType, TensorType
    from xdsl.ir import BlockArgument

    from spyre_mlir.dialects.ktdp import RuntimeArgType
    from spyre_mlir.walk import walk_ops  # not recursive: inputs nest thousands deep

    plans = []
    called = {c.callee.root_reference.data for c in walk_ops(module) if isinstance(c, func.CallOp)}
    for op in walk_ops(module):
        if not isinstance(op, func.FuncOp) or not op.body.blocks or op.sym_name.data in called:
            continue  # a function another calls (an outlined group) runs as part of its caller
        params = op.body.blocks[0].args
        if not all(_supported_param(a.type) for a in params):
            continue
        # Seeded by the function's name and type, not the whole text: a reduced input keeps its arguments.
        rng = random.Random(_text_seed(op.sym_name.data, str(op.function_type)))
        views: dict[int, tuple] = {}
        for inner in walk_ops(op):
            if inner.name != "ktdp.construct_memory_view" or not inner.operands:
                continue
            base = inner.operands[0]
            result = inner.results[0].type if inner.results else None
            if isinstance(base, BlockArgument) and base.owner is op.body.blocks[0] and isinstance(result, MemRefType):
                views.setdefault(base.index, (inner, result))
        args: dict[str, object] = {}
        cli: list[str] = []
        for i, a in enumerate(params):
            name = a.name_hint or f"arg{i}"
            ty = a.type
            if isinstance(ty, IndexType) and i in views:
                arr = _view_array(*views[i], rng)
                if arr is not None:
                    args[name], spec = arr
                    cli.append(f"{name}={spec}")
                    continue
            if isinstance(ty, RuntimeArgType):
                g = getattr(ty.granularity, "data", None) or 1
                u = getattr(ty.upperbound, "data", None)
                v = g * rng.choice([1, 2, 3, 4])
                if u is not None and v > u:
                    v = g * max(u // g, 0)
                args[name] = v
                cli.append(f"{name}={v}")
            elif isinstance(ty, IndexType | IntegerType):
                width = getattr(getattr(ty, "width", None), "data", 64)
                v = rng.choice([0, 1]) if width == 1 else rng.choice([0, 1, 2, 3, 4, 8, 16])
                args[name] = v
                cli.append(f"{name}={v}")
            elif isinstance(ty, AnyFloat):
                v = round(rng.uniform(-2.0, 2.0), 3)
                args[name] = v
                cli.append(f"{name}={v}")
            elif isinstance(ty, TensorType):
                arr = _random_array(ty.get_shape(), ty.get_element_type(), rng)
                if arr is None:
                    break
                args[name], spec = arr
                cli.append(f"{name}={spec}")
        else:
            options = {
                "execution": rng.choice(["auto", "auto", "auto", "per-core", "batched"]),
                "check_uninitialized": rng.random() < 0.7,
                "mask_out_of_bounds": rng.random() < 0.3,
                "timeout": INTERPRET_TIMEOUT,
            }
            plans.append({"func": op.sym_name.data, "args": args, "cli": cli, "options": options})
    if len(plans) > MAX_FUNCTIONS:
        plans = random.Random(_text_seed(" ".join(p["func"] for p in plans), "plans")).sample(plans, MAX_FUNCTIONS)
    return plans


def _supported_param(ty) -> bool:
    from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, TensorType

    from spyre_mlir.dialects.ktdp import RuntimeArgType

    if isinstance(ty, IndexType | IntegerType | AnyFloat | RuntimeArgType):
        return True
    if isinstance(ty, TensorType):
        shape = ty.get_shape()
        return (
            all(d >= 0 for d in shape) and math.prod(shape) <= 4096 and _dtype_name(ty.get_element_type()) is not None
        )
    return False


def _dtype_name(element) -> str | None:
    name = str(element)
    return name if name in ("f16", "f32", "f64", "bf16", "i1", "i8", "i16", "i32", "i64", "index") else None


def _random_array(shape: Sequence[int], element, rng: random.Random):
    """(array, spyre-run spelling) of seeded values: what `spyre-run --arg NAME=random:SHAPExTYPE:SEED`
    gives (floats standard normal, integers in [-100, 100)), but small non-negative integers for `index`."""
    import numpy as np

    from spyre_mlir.interpreter import float32_to_bf16_bits

    name = _dtype_name(element)
    if name is None:
        return None
    shape = tuple(int(d) for d in shape)
    if math.prod(shape) > MAX_ARRAY_ELEMENTS:
        return None
    seed = rng.randrange(1 << 30)
    spec = f"random:{'x'.join(map(str, shape)) + 'x' if shape else ''}{name}:{seed}"
    gen = np.random.default_rng(seed)
    if name == "bf16":
        array = float32_to_bf16_bits(gen.standard_normal(shape, dtype=np.float32))
    elif name in ("f16", "f32", "f64"):
        array = gen.standard_normal(shape).astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[name])
    elif name == "i1":
        array = gen.integers(0, 2, shape).astype(bool)
    elif name == "index":
        array = gen.integers(0, 4, shape).astype(np.int64)
    else:
        array = gen.integers(-100, 100, shape).astype(
            {"i8": np.int8, "i16": np.int16, "i32": np.int32}.get(name, np.int64)
        )
    return array, spec


def _view_array(view_op, memref, rng: random.Random):
    """A random array large enough for the memory view on this parameter."""
    shape = [d if d >= 0 else 16 for d in memref.get_shape()]
    extent = math.prod(shape) if shape else 1
    sizes = getattr(view_op, "static_sizes", None)
    strides = getattr(view_op, "static_strides", None)
    try:
        sz = [int(x) for x in sizes.get_values()] if sizes is not None else []
        st = [int(x) for x in strides.get_values()] if strides is not None else []
        if sz and len(sz) == len(st) and all(0 < x < 1 << 20 for x in sz) and all(0 <= x < 1 << 20 for x in st):
            extent = max(extent, 1 + sum((a - 1) * b for a, b in zip(sz, st)))
    except Exception:  # noqa: BLE001 - only a size hint
        pass
    if not 0 < extent <= MAX_ARRAY_ELEMENTS:
        return None
    return _random_array((extent,), memref.get_element_type(), rng)


def evaluate(
    data: bytes, stages: Sequence[str] = STAGES, report: Callable[[str, str, dict | None], None] | None = None
) -> dict:
    """Run one input through `stages`; `report(event, stage, outcome)` is
    called with ("begin", stage, None) and ("end", stage, outcome)."""
    import spyre_mlir
    from spyre_mlir import ir

    report = report or (lambda *_: None)
    text = data.decode("utf-8", "replace")
    result: dict = {}

    def stage(name: str, fn: Callable[[], dict | None]):
        report("begin", name, None)
        try:
            outcome = fn() or _accepted()
        except BaseException as exc:  # noqa: BLE001 - classified, including SystemExit/RecursionError
            if isinstance(exc, KeyboardInterrupt):
                raise
            outcome = classify(exc)
        result[name] = outcome
        report("end", name, outcome)
        return outcome

    holder: dict = {}

    def parse():
        holder["module"] = holder["source"] = parse_text(text)

    if stage("parse", parse)["category"] != "accepted":
        return result

    # `holder["source"]` is the module as parsed and verified, never changed:
    # the stages that run the source (interpret when the pipeline gives no
    # module, spatial) use it instead of parsing the text again.
    if "pipeline" in stages:

        def pipeline():
            if "interpret" in stages or "spatial" in stages:
                holder["source"] = clone_module(holder["module"])  # the pipeline changes the module in place
            pass_manager(PIPELINE).run(holder["module"])  # verified by the parse stage
            printed = ir.print_ir(holder["module"])
            try:
                parse_text(printed)
            except spyre_mlir.DiagnosticError as exc:
                return _accepted(roundtrip=_first_line(exc.diagnostic.render()))
            return None

        if stage("pipeline", pipeline)["category"] != "accepted":
            holder.pop("module", None)

    # What the interpret stage computed on the source itself (not the pipeline's
    # output), for the spatial stage to reuse: its plans and, per plan, the run.
    ran: dict | None = None

    if "interpret" in stages:
        plans_box: dict = {}

        def interpret():
            nonlocal ran
            module = holder.get("module") or holder.get("source") or parse_text(text)
            on_source = module is holder.get("source")
            plans = plans_box["plans"] = interpret_plans(module)
            if on_source:
                ran = {"plans": plans, "runs": {}}
            if not plans:
                return {"category": "skipped", "message": "no function with supported parameters"}
            worst: dict | None = None
            for i, plan in enumerate(plans):
                try:
                    # On the source, with a copy of the arguments: the spatial stage runs on the originals.
                    args = _copy_args(plan["args"]) if on_source else plan["args"]
                    returned = verified_interpreter(module, plan["options"]).run(plan["func"], args)
                    outcome = _accepted()
                    if ran is not None:
                        ran["runs"][i] = (True, returned)
                except BaseException as exc:  # noqa: BLE001
                    if isinstance(exc, KeyboardInterrupt):
                        raise
                    outcome = classify(exc)
                    if ran is not None and isinstance(exc, Exception):
                        ran["runs"][i] = (False, exc)
                outcome["func"] = plan["func"]
                if worst is None or SEVERITY[outcome["category"]] > SEVERITY[worst["category"]]:
                    worst = outcome
            assert worst is not None
            worst["functions"] = [p["func"] for p in plans]
            return worst

        stage("interpret", interpret)
        plans = plans_box.get("plans") or []
        if plans:
            result["cli"] = {"func": plans[0]["func"], "args": plans[0]["cli"]}

    if "spatial" in stages:
        stage("spatial", lambda: spatial_check(text, holder.get("source"), ran))
    return result


def spatial_options(plan: dict) -> dict:
    """The interpreter options of the spatial stage's runs: the plan's, but
    every access checked (no masking; reads of uninitialized memory refused)."""
    return {**plan["options"], "mask_out_of_bounds": False, "check_uninitialized": True}


def spatial_check(text: str, source=None, ran: dict | None = None) -> dict | None:
    """The `spatial` stage: each runnable function lowered by `ktir-to-spatial`
    (specialized for the plan's scalars) and run on the plan's arguments must
    give what the source gives where the source runs (translation validation);
    a program that fails to run where its source ran is a bug, not a refusal.

    `source` is `text` parsed and verified (parsed here when not given), left
    unchanged: each lowering runs on a clone. `ran` is what the interpret stage
    computed on that same module, `{"plans": [...], "runs": {i: (ran, result or
    exception)}}`: a run with this stage's options is reused, not repeated."""
    import numpy as np

    from spyre_mlir.interpreter import Interpreter, InterpreterOptions

    if source is None:
        source = parse_text(text)
    plans = ran["plans"] if ran is not None else interpret_plans(source)
    runs = ran["runs"] if ran is not None else {}
    if not plans:
        return {"category": "skipped", "message": "no function with supported parameters"}
    checked = 0
    for i, plan in enumerate(plans):
        scalars = {k: v for k, v in plan["args"].items() if isinstance(v, int | float) and not isinstance(v, bool)}
        spec = "ktir-to-spatial"
        if scalars:
            spec += '{scalars="' + ",".join(f"{k}={v}" for k, v in scalars.items()) + '"}'
        module = clone_module(source)
        pass_manager(spec, pipeline=True).run(module)  # a refusal: the stage's outcome
        options = spatial_options(plan)
        if i in runs and options == plan["options"]:  # the interpret stage ran this already
            ok, before = runs[i]
            if not ok:
                continue  # the source does not run on these arguments: nothing to compare
        else:
            try:
                before = verified_interpreter(source, options).run(plan["func"], _copy_args(plan["args"]))
            except Exception:  # noqa: BLE001 - the source does not run on these arguments: nothing to compare
                continue
        try:
            after = Interpreter(module, InterpreterOptions(**options)).run(plan["func"], dict(plan["args"]))
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(f"the spatial program @{plan['func']} fails where its source runs: "
                                 f"{_first_line(str(exc), 200)}") from exc
        for key, value in before.items():
            if not np.array_equal(np.asarray(after[key]), np.asarray(value), equal_nan=True):
                raise AssertionError(f"the spatial program @{plan['func']} disagrees with its source on '{key}'")
        checked += 1
    return _accepted(checked=checked)


# ---------------------------------------------------------------------------
# The worker pool
# ---------------------------------------------------------------------------


def _worker_main(conn, dump_path: str, memory_limit: int) -> None:
    import faulthandler

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    dump = open(dump_path, "w")  # noqa: SIM115 - lives as long as the process
    faulthandler.enable(file=dump, all_threads=True)
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
    if memory_limit > 0:
        with contextlib.suppress(Exception):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        key, data, stages = task

        def report(event, stage, outcome, key=key):
            conn.send((event, key, stage, outcome))

        result = evaluate(data, stages, report)
        conn.send(("done", key, None, result))


class _Worker:
    def __init__(self, ctx, serial: int, tmpdir: str, memory_limit: int):
        self.dump = os.path.join(tmpdir, f"worker-{serial}.txt")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, self.dump, memory_limit), daemon=True)
        self.proc.start()
        child.close()
        self.key: str | None = None
        self.stage: str | None = None
        self.partial: dict = {}
        self.deadline = math.inf

    def stop(self, kill: bool = False) -> None:
        if kill:
            with contextlib.suppress(Exception):
                self.proc.kill()
        else:
            with contextlib.suppress(Exception):
                self.conn.send(None)
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        with contextlib.suppress(Exception):
            self.conn.close()

    def read_dump(self) -> str:
        try:
            return Path(self.dump).read_text(errors="replace")
        except OSError:
            return ""


_FUZZER = "spyre_fuzz/"  # in the frames of the fuzzer's own code


def _stack_site(dump: str) -> tuple[str | None, list[str]]:
    """From a faulthandler dump: the innermost frame of ours (or xDSL's), and the deepest stack."""
    threads = re.split(r"\n(?=(?:Current thread|Thread) 0x)", dump)
    best: list[str] = []
    for t in threads:
        frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', t)
        rendered = []
        for path, line, fn in frames:
            if path.startswith(_OURS):
                path = path[len(_OURS) + 1 :]
            elif "/site-packages/" in path:
                path = path.split("/site-packages/", 1)[1]
            rendered.append(f"{path}:{line} in {fn}")
        if any(_FUZZER in r and "_worker_main" in r for r in rendered) and len(rendered) > len(best):
            best = rendered
        elif not best and len(rendered) > len(best):
            best = rendered
    cut = next((i for i, r in enumerate(best) if "_worker_main" in r), len(best))
    best = best[:cut]
    deep = [r for r in best if _FUZZER not in r and "/threading.py" not in r]
    frames = [r for r in best if "/threading.py" not in r]
    site = next((r for r in deep if not r.startswith(("xdsl/", "numpy/")) and "/python3." not in r), None)
    return site or (deep[0] if deep else None), frames[:12]


class Pool:
    """`jobs` worker processes; each input gets `timeout` seconds."""

    def __init__(self, jobs: int = 2, timeout: float = 10.0, memory_limit_mb: int = 12288):
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.memory_limit = memory_limit_mb * 1024 * 1024
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.tmpdir = tempfile.mkdtemp(prefix="spyre-fuzz-")
        self.serial = 0
        self.workers: list[_Worker] = []
        _warm_up()

    def _spawn(self) -> _Worker:
        self.serial += 1
        return _Worker(self.ctx, self.serial, self.tmpdir, self.memory_limit)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for w in self.workers:
            w.stop(kill=w.key is not None)
        self.workers = []
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def run(
        self,
        tasks: Sequence[tuple[str, bytes, Sequence[str]]],
        on_result: Callable[[str, dict], None] | None = None,
        timeout: float | None = None,
    ) -> dict[str, dict]:
        """Results by key: stage outcomes, plus `hang`/`crash` details."""
        timeout = self.timeout if timeout is None else timeout
        while len(self.workers) < min(self.jobs, max(1, len(tasks))):
            self.workers.append(self._spawn())
        pending = list(reversed(tasks))
        results: dict[str, dict] = {}

        def finish(w: _Worker, result: dict) -> None:
            results[w.key] = result
            if on_result:
                on_result(w.key, result)
            w.key, w.stage, w.partial, w.deadline = None, None, {}, math.inf

        def replace(w: _Worker) -> None:
            i = self.workers.index(w)
            w.stop(kill=True)
            self.workers[i] = self._spawn()

        while pending or any(w.key is not None for w in self.workers):
            for w in self.workers:
                if w.key is None and pending:
                    key, data, stages = pending.pop()
                    w.key, w.stage, w.partial = key, None, {}
                    w.deadline = time.monotonic() + timeout
                    try:
                        w.conn.send((key, data, tuple(stages)))
                    except (BrokenPipeError, OSError):
                        pass  # seen as a crash below
            busy = [w for w in self.workers if w.key is not None]
            wait = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], wait)
            for w in list(busy):
                if w.conn in ready or w.proc.sentinel in ready:
                    try:
                        while w.key is not None and w.conn.poll():
                            event, key, stage, outcome = w.conn.recv()
                            if event == "begin":
                                w.stage = stage
                            elif event == "end":
                                w.partial[stage] = outcome
                            elif event == "done":
                                finish(w, outcome)
                    except (EOFError, OSError):
                        pass
                    if w.key is not None and not w.proc.is_alive():
                        w.proc.join()
                        code = w.proc.exitcode
                        site, frames = _stack_site(w.read_dump())
                        why = (
                            f"signal {-code} ({signal.Signals(-code).name})"
                            if code and code < 0
                            else f"exit code {code}"
                        )
                        stage = w.stage or "parse"
                        result = dict(w.partial)
                        result[stage] = {
                            "category": "crash",
                            "message": f"worker died: {why}",
                            "site": site,
                            "frames": frames,
                        }
                        finish(w, result)
                        replace(w)
            now = time.monotonic()
            for w in list(self.workers):
                if w.key is not None and now >= w.deadline:
                    with contextlib.suppress(Exception):
                        os.kill(w.proc.pid, signal.SIGUSR1)
                    time.sleep(0.3)
                    site, frames = _stack_site(w.read_dump())
                    stage = w.stage or "parse"
                    result = dict(w.partial)
                    result[stage] = {
                        "category": "hang",
                        "message": f"no result after {timeout:g} s",
                        "site": site,
                        "frames": frames,
                    }
                    finish(w, result)
                    replace(w)
        return results


_WARM = False


def _warm_up() -> None:
    """Import and load everything once, so forked workers start warm."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    import numpy  # noqa: F401

    from spyre_mlir import interpreter  # noqa: F401
    from spyre_mlir.passes import get_all_passes
    from spyre_mlir.tools import spyre_run  # noqa: F401

    get_all_passes()
    for path in default_seed_paths():
        with contextlib.suppress(Exception):
            parse_text(path.read_text(encoding="utf-8", errors="replace"))


# ---------------------------------------------------------------------------
# Upstream MLIR (iree-opt)
# ---------------------------------------------------------------------------

_SPLIT_IN = "// spyre-fuzz-split-input"
_SPLIT_OUT = "// spyre-fuzz-split-output"


def find_iree_opt() -> str | None:
    beside = Path(sys.executable).with_name("iree-opt")
    if beside.exists():
        return str(beside)
    return shutil.which("iree-opt")


def iree_verdicts(
    exe: str, datas: Sequence[bytes], timeout: float = 60.0, batch: int = 40, jobs: int = 2
) -> list[dict]:
    """Upstream MLIR's parse+verify verdict per input: {"verdict": "accept"|"reject"|"crash"|"hang", "error": ...}.

    Inputs are checked many per `iree-opt --split-input-file` process; a batch
    whose output cannot be attributed (iree-opt crashed) is rerun one by one."""
    from concurrent.futures import ThreadPoolExecutor

    groups = [list(range(i, min(i + batch, len(datas)))) for i in range(0, len(datas), batch)]
    out: list[dict] = [{} for _ in datas]

    def one_by_one(indices: list[int]) -> None:
        for i in indices:
            out[i] = iree_verdict(exe, datas[i], timeout)

    def run_group(indices: list[int]) -> None:
        if any(_SPLIT_IN.encode() in datas[i] or _SPLIT_OUT.encode() in datas[i] for i in indices):
            return one_by_one(indices)
        chunks = [datas[i] if datas[i].endswith(b"\n") else datas[i] + b"\n" for i in indices]
        joined = f"\n{_SPLIT_IN}\n".encode().join(chunks)
        try:
            proc = subprocess.run(
                [exe, f"--split-input-file={_SPLIT_IN}", f"--output-split-marker={_SPLIT_OUT}", "-"],
                input=joined,
                capture_output=True,
                timeout=timeout * 4,
            )
        except subprocess.TimeoutExpired:
            return one_by_one(indices)
        pieces = re.split(rf"^{re.escape(_SPLIT_OUT)}$", proc.stdout.decode("utf-8", "replace"), flags=re.MULTILINE)
        if proc.returncode not in (0, 1) or len(pieces) != len(indices):
            return one_by_one(indices)
        for i, piece in zip(indices, pieces):
            out[i] = {"verdict": "accept" if piece.strip() else "reject"}

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        list(ex.map(run_group, groups))
    return out


def iree_verdict(exe: str, data: bytes, timeout: float = 60.0) -> dict:
    try:
        proc = subprocess.run([exe, "-", "-o", os.devnull], input=data, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "hang"}
    err = proc.stderr.decode("utf-8", "replace")
    first = next(
        (line for line in err.splitlines() if "error:" in line), err.strip().splitlines()[0] if err.strip() else ""
    )
    if proc.returncode == 0:
        return {"verdict": "accept"}
    if proc.returncode == 1:
        return {"verdict": "reject", "error": first}
    return {"verdict": "crash", "error": f"exit code {proc.returncode}: {first}"}


def our_verdict(result: dict) -> str | None:
    category = result.get("parse", {}).get("category")
    if category == "accepted":
        return "accept"
    if category in ("located", "unlocated"):
        return "reject"
    return None


# ---------------------------------------------------------------------------
# The campaign
# ---------------------------------------------------------------------------


PIPELINE = (
    "ktdp-normalize-memory-space,spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,"
    "canonicalize,ktdp-hbm-roundtrip,ktdp-extract-compute-groups,ktdf-build-pipelines"
)
"""What the `pipeline` stage runs: the clean-up of the `default` pipeline, then
the lowering to the schedule IR (`ktir-to-schedule`), so that the interpreter
stage runs the scheduled kernel."""


@dataclass
class FuzzConfig:
    count: int = 500
    seed: int = 0
    timeout: float = 10.0
    jobs: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    iree: bool = True
    interpret: bool = True
    examples: int = 3
    out: Path | None = None
    minimize: bool = True
    minimize_budget: float = 120.0
    seed_paths: list[Path] | None = None
    mutators: list[str] | None = None
    progress: bool = True
    memory_limit_mb: int = 12288
    start: int = 0


@dataclass
class InputResult:
    input: FuzzInput
    stages: dict[str, dict]
    upstream_only: bool = False
    iree: dict | None = None
    compared: bool = False

    @property
    def category(self) -> str:
        cats = [o["category"] for o in self.stages.values() if o.get("category") in SEVERITY]
        return max(cats, key=SEVERITY.__getitem__) if cats else "accepted"

    @property
    def ours(self) -> str | None:
        return our_verdict(self.stages)

    @property
    def disagrees(self) -> bool:
        return self.compared and self.iree is not None and self.iree.get("verdict") != self.ours

    def bad_stage(self) -> tuple[str, dict] | None:
        for stage in STAGES:
            o = self.stages.get(stage)
            if o and o["category"] in BAD + ("unlocated",):
                return stage, o
        return None


_NORMALIZE = [
    (re.compile(r"%[\w.$\-]+"), "%V"),
    (re.compile(r"@[\w.$\-]+"), "@S"),
    (re.compile(r"\^[\w.$\-]+"), "^B"),
    (re.compile(r"0x[0-9a-fA-F]+"), "N"),
    (re.compile(r"\d+"), "N"),
    (re.compile(r"'[^']{20,}'"), "'...'"),
    (re.compile(r'"[^"]*"'), '"S"'),
]


def normalize(message: str) -> str:
    for pattern, repl in _NORMALIZE:
        message = pattern.sub(repl, message)
    return message[:160]


def finding_key(r: InputResult) -> tuple | None:
    """What makes two inputs the same finding (None: not a finding)."""
    bad = r.bad_stage()
    if bad is not None:
        stage, o = bad
        cat = o["category"]
        if cat in ("hang", "crash"):
            # Where a hang was caught varies from run to run: prefer the loop that spins (an scf op's
            # step in the interpreter) to the innermost frame, and no line numbers.
            loop = next((f for f in o.get("frames") or [] if "interpreter/ops_scf.py" in f), None)
            return (cat, stage, re.sub(r":\d+ in ", " in ", loop or o.get("site") or "?"))
        if cat == "internal":
            frames = o.get("frames") or []
            kind = o.get("cause", o["type"]).split(":")[0]
            # The innermost frame names the bug; not for exhaustion, whose innermost frame is arbitrary.
            site = "" if kind in ("RecursionError", "MemoryError") or not frames else frames[-1]
            site = re.sub(r":\d+ in ", " in ", site)
            return (cat, stage, kind, site or normalize(o["message"]))
        return (cat, stage, normalize(o["message"]))
    if r.disagrees:
        return ("disagreement", "parse", f"ours {r.ours}, iree-opt {r.iree.get('verdict')}")
    return None


@dataclass
class Finding:
    key: tuple
    results: list[InputResult]
    files: list[str] = field(default_factory=list)

    @property
    def category(self) -> str:
        return self.key[0]

    @property
    def stage(self) -> str:
        return self.key[1]

    def first_line(self) -> str:
        r = self.results[0]
        if self.category == "disagreement":
            err = (r.iree or {}).get("error") or ""
            ours = r.stages["parse"]
            mine = f"ours: {ours.get('location') or ''} {ours.get('message', 'accepted')}".strip()
            return f"ours {r.ours} / iree-opt {r.iree.get('verdict')}; {mine}" + (f"; iree-opt: {err}" if err else "")
        o = r.stages[self.stage]
        if self.category in ("hang", "crash"):
            return f"{o['message']}; at {o.get('site') or '?'}"
        head = f"{o.get('type')}: {o['message']}" if o.get("type") != "DiagnosticError" else o["message"]
        if o.get("cause"):
            head += f" (cause {o['cause']})"
        return head


@dataclass
class FuzzReport:
    config: FuzzConfig
    seeds: list[Seed]
    results: list[InputResult]
    baseline: dict[str, dict]
    elapsed: float
    iree_exe: str | None
    findings: list[Finding] = field(default_factory=list)
    iree_skipped_seeds: list[str] = field(default_factory=list)

    def counts(self) -> Counter:
        return Counter(r.category for r in self.results)

    def stage_counts(self) -> dict[str, Counter]:
        out = {s: Counter() for s in STAGES}
        for r in self.results:
            for s in STAGES:
                o = r.stages.get(s)
                out[s][o["category"] if o else "skipped"] += 1
        return out

    def iree_counts(self) -> dict:
        compared = [r for r in self.results if r.compared]
        dis = [r for r in compared if r.disagrees]
        return {
            "upstream_only": sum(r.upstream_only for r in self.results),
            "compared": len(compared),
            "agree": len(compared) - len(dis),
            "disagree": len(dis),
            "we_accept_iree_rejects": sum(r.ours == "accept" and r.iree.get("verdict") == "reject" for r in dis),
            "we_reject_iree_accepts": sum(r.ours == "reject" and r.iree.get("verdict") == "accept" for r in dis),
            "iree_crash_or_hang": sum(
                r.iree is not None and r.iree.get("verdict") in ("crash", "hang") for r in self.results
            ),
            "skipped_seeds": self.iree_skipped_seeds,
        }

    def roundtrip_failures(self) -> list[InputResult]:
        return [r for r in self.results if r.stages.get("pipeline", {}).get("roundtrip")]

    def bad(self) -> dict[str, int]:
        c = self.counts()
        return {k: c[k] for k in BAD if c[k]} | (
            {"disagreement": self.iree_counts()["disagree"]} if self.iree_counts()["disagree"] else {}
        )

    def table(self) -> str:
        c = self.counts()
        n = len(self.results)
        cfg = self.config
        lines = [
            f"spyre-mlir fuzz: {n} inputs (#{cfg.start}..#{cfg.start + n - 1}) of seed {cfg.seed} from "
            f"{len(self.seeds)} seed kernels; {cfg.jobs} workers, timeout {cfg.timeout:g} s; {self.elapsed:.1f} s",
            "",
            f"{'outcome (worst stage)':<28}{'inputs':>8}",
        ]
        for cat in CATEGORIES:
            lines.append(f"  {LABELS[cat]:<26}{c[cat]:>8}{'   <-- bug' if cat in BAD and c[cat] else ''}")
        lines += [
            "",
            f"{'stage':<14}"
            + "".join(f"{h:>11}" for h in ("accepted", "located", "unlocated", "internal", "hang", "crash", "not run")),
        ]
        for s, counter in self.stage_counts().items():
            lines.append(
                f"  {s:<12}"
                + "".join(
                    f"{counter[k]:>11}"
                    for k in ("accepted", "located", "unlocated", "internal", "hang", "crash", "skipped")
                )
            )
        rt = self.roundtrip_failures()
        lines.append(f"  (printed IR that does not parse back after the pipeline: {len(rt)})")
        lines.append("")
        if self.iree_exe is None:
            lines.append("iree-opt parity: not checked" + (" (iree-opt not found)" if cfg.iree else ""))
        else:
            ic = self.iree_counts()
            lines.append(
                f"iree-opt parity (parse+verify, upstream-only inputs): {ic['upstream_only']} upstream-only, "
                f"{ic['compared']} compared, {ic['agree']} agree, {ic['disagree']} disagree "
                f"(we accept/iree rejects {ic['we_accept_iree_rejects']}, we reject/iree accepts "
                f"{ic['we_reject_iree_accepts']}); iree-opt itself crashed or hung on {ic['iree_crash_or_hang']} (not compared)"
            )
            if ic["skipped_seeds"]:
                lines.append(
                    f"  not compared (the seed itself gets different verdicts): {', '.join(ic['skipped_seeds'])}"
                )
        bad_baseline = {k: v for k, v in self.baseline.items() if v["category"] != "accepted"}
        if bad_baseline:
            lines.append("")
            lines.append("seed kernels that are not accepted as they are (worst stage):")
            for name, v in bad_baseline.items():
                lines.append(f"  {name}: {v['category']} at {v['stage']}: {v['message']}")
        lines.append("")
        if not self.findings:
            lines.append("distinct findings: none")
        else:
            lines.append(f"distinct findings ({len(self.findings)}):")
            for f in self.findings:
                where = f"  -> {f.files[0]}" if f.files else ""
                lines.append(f"  [{f.category} in {f.stage}] x{len(f.results)}: {f.first_line()}{where}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        cfg = self.config
        return {
            "config": {
                "count": cfg.count, "seed": cfg.seed, "start": cfg.start, "timeout": cfg.timeout, "jobs": cfg.jobs,
                "iree": self.iree_exe, "interpret": cfg.interpret, "mutators": cfg.mutators or sorted(MUTATORS),
            },
            "code": _code_state(),
            "seeds": [s.name for s in self.seeds],
            "elapsed_seconds": round(self.elapsed, 2),
            "counts": {c: self.counts()[c] for c in CATEGORIES},
            "stage_counts": {s: dict(c) for s, c in self.stage_counts().items()},
            "roundtrip_failures": len(self.roundtrip_failures()),
            "iree": self.iree_counts() if self.iree_exe else None,
            "bad": self.bad(),
            "baseline": self.baseline,
            "findings": [
                {
                    "category": f.category,
                    "stage": f.stage,
                    "key": list(f.key),
                    "count": len(f.results),
                    "first_line": f.first_line(),
                    "inputs": [r.input.index for r in f.results],
                    "files": f.files,
                    "example": _describe_result(f.results[0]),
                }
                for f in self.findings
            ],
            "inputs": [
                {
                    "index": r.input.index,
                    "seed": r.input.seed,
                    "mutators": [m.split(":")[0] for m in r.input.mutations],
                    "category": r.category,
                    "stages": {s: o.get("category") for s, o in r.stages.items() if isinstance(o, dict)},
                    **({"iree": r.iree.get("verdict"), "ours": r.ours} if r.iree else {}),
                }
                for r in self.results
            ],
        }  # fmt: skip


def _code_state() -> dict:
    """The commit fuzzed, and the files that differed from it (findings are about that state)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        status = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"head": head.stdout.strip(), "modified": [line[3:] for line in status.stdout.splitlines()]}


def _describe_result(r: InputResult) -> dict:
    return {
        "index": r.input.index,
        "seed": r.input.seed,
        "mutations": r.input.mutations,
        "stages": r.stages,
        "upstream_only": r.upstream_only,
        "iree": r.iree,
    }


def _progress(enabled: bool):
    start = time.monotonic()
    last = [start]

    printed = [-1]

    def tick(done: int, total: int, counter: Counter, force: bool = False) -> None:
        now = time.monotonic()
        if not enabled or (not force and now - last[0] < 5.0) or printed[0] == done:
            return
        last[0], printed[0] = now, done
        bad = ", ".join(f"{k} {counter[k]}" for k in BAD)
        print(f"fuzz: {done}/{total} inputs, {now - start:.0f} s ({bad})", file=sys.stderr, flush=True)

    return tick


def run(config: FuzzConfig) -> FuzzReport:
    """Generate, run and classify `config.count` inputs; reduce and write examples."""
    started = time.monotonic()
    seeds = load_seeds(config.seed_paths)
    inputs = generate(config.count, config.seed, seeds, config.start, config.mutators)
    stages = STAGES if config.interpret else ("parse", "pipeline")
    iree_exe = find_iree_opt() if config.iree else None
    tick = _progress(config.progress)
    with Pool(config.jobs, config.timeout, config.memory_limit_mb) as pool:
        # Seeds as they are: a baseline, and which seeds iree-opt may be compared on.
        base = pool.run([(f"seed:{s.name}", s.text.encode("utf-8", "surrogateescape"), stages) for s in seeds])
        baseline = {}
        for s in seeds:
            r = InputResult(FuzzInput(-1, s.name, [], b""), base[f"seed:{s.name}"])
            stage = next((st for st in STAGES if st in r.stages and r.stages[st]["category"] == r.category), "")
            baseline[s.name] = {
                "category": r.category,
                "stage": stage if r.category != "accepted" else "",
                "message": r.stages.get(stage, {}).get("message", "") if r.category != "accepted" else "",
                "ours": r.ours,
            }
        comparable: set[str] = set()
        skipped: list[str] = []
        if iree_exe:
            up = [s for s in seeds if upstream_only(s.text)]
            verdicts = iree_verdicts(iree_exe, [s.text.encode() for s in up], jobs=config.jobs)
            for s, v in zip(up, verdicts):
                baseline[s.name]["iree"] = v.get("verdict")
                if v.get("verdict") == "accept" and baseline[s.name]["ours"] == "accept":
                    comparable.add(s.name)
                else:
                    skipped.append(s.name)

        counter: Counter = Counter()
        done = [0]

        def on_result(key: str, result: dict) -> None:
            done[0] += 1
            r = InputResult(FuzzInput(0, "", [], b""), result)
            counter[r.category] += 1
            tick(done[0], len(inputs), counter)

        raw = pool.run([(x.key, x.data, stages) for x in inputs], on_result)
        tick(done[0], len(inputs), counter, force=True)
        results = [InputResult(x, raw[x.key]) for x in inputs]

        if iree_exe:
            todo = []
            for r in results:
                r.upstream_only = upstream_only(r.input.text)
                if r.upstream_only and r.input.seed in comparable and r.ours is not None:
                    todo.append(r)
            for r, v in zip(todo, iree_verdicts(iree_exe, [r.input.data for r in todo], jobs=config.jobs)):
                r.iree = v
                # iree-opt crashing or hanging is upstream's bug: counted apart, not compared
                r.compared = v.get("verdict") in ("accept", "reject")
            for r in todo:
                if r.disagrees and r.iree.get("verdict") == "reject" and not r.iree.get("error"):
                    r.iree = iree_verdict(iree_exe, r.input.data)

        groups: dict[tuple, list[InputResult]] = {}
        for r in results:
            key = finding_key(r)
            if key is not None:
                groups.setdefault(key, []).append(r)
        order = {c: i for i, c in enumerate(("crash", "hang", "internal", "disagreement", "unlocated"))}
        findings = sorted(
            (Finding(k, v) for k, v in groups.items()), key=lambda f: (order[f.category], -len(f.results))
        )
        report = FuzzReport(config, seeds, results, baseline, 0.0, iree_exe, findings, skipped)
        if config.out is not None:
            _write_examples(report, pool, iree_exe, stages)
    report.elapsed = time.monotonic() - started
    return report


# ---------------------------------------------------------------------------
# Reduction and examples
# ---------------------------------------------------------------------------


def _same_finding(key: tuple, iree_exe: str | None) -> Callable[[dict, bytes], bool]:
    def check(result: dict, data: bytes) -> bool:
        r = InputResult(FuzzInput(0, "", [], data), result)
        if key[0] == "disagreement":
            if not upstream_only(r.input.text) or r.ours is None or iree_exe is None:
                return False
            r.iree = iree_verdict(iree_exe, data)
            r.compared = r.iree.get("verdict") in ("accept", "reject")
        return finding_key(r) == key

    return check


class _Reducer:
    """Try smaller candidates (a batch per pool round); keep the first that still gives the finding."""

    def __init__(self, stages, pool: Pool, check, deadline: float, max_tries: int):
        self.stages, self.pool, self.check = stages, pool, check
        self.deadline, self.max_tries = deadline, max_tries
        self.tries = 0
        self.serial = 0

    def alive(self) -> bool:
        return self.tries < self.max_tries and time.monotonic() < self.deadline

    def first(self, candidates: list[bytes]) -> bytes | None:
        for b in range(0, len(candidates), self.pool.jobs):
            if not self.alive():
                return None
            tasks = []
            for blob in candidates[b : b + self.pool.jobs]:
                self.serial += 1
                tasks.append((f"reduce:{self.serial}", blob, self.stages))
            self.tries += len(tasks)
            res = self.pool.run(tasks)
            for key, blob, _ in tasks:
                if self.check(res[key], blob):
                    return blob
        return None


def reduce_input(
    data: bytes,
    stages: Sequence[str],
    pool: Pool,
    check: Callable[[dict, bytes], bool],
    deadline: float,
    max_tries: int,
) -> bytes:
    """Drop whole functions, then chunks of lines (ddmin-like), while the input gives the same finding."""
    r = _Reducer(stages, pool, check, deadline, max_tries)
    while r.alive():  # whole functions first: line deletions rarely keep a kernel valid
        text = data.decode("utf-8", "surrogateescape")
        spans = function_spans(text)
        if len(spans) < 2:
            break
        found = r.first([(text[:s] + text[e:]).encode("utf-8", "surrogateescape") for _, s, e in spans])
        if found is None:
            break
        data = found
    lines = data.splitlines(keepends=True)
    n = 2
    while len(lines) >= 2 and r.alive():
        chunk = max(1, math.ceil(len(lines) / n))
        starts = range(0, len(lines), chunk)
        found = r.first([b"".join(lines[:i] + lines[i + chunk :]) for i in starts])
        if found is not None:
            lines = found.splitlines(keepends=True)
            n = max(n - 1, 2)
        elif chunk == 1:
            break
        else:
            n = min(n * 2, len(lines))
    return b"".join(lines)


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-")[:60] or "x"


def _write_examples(report: FuzzReport, pool: Pool, iree_exe: str | None, stages: Sequence[str]) -> None:
    cfg = report.config
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    budget_end = time.monotonic() + (cfg.minimize_budget if cfg.minimize else 0)
    per_example = cfg.minimize_budget / max(1, sum(min(cfg.examples, len(f.results)) for f in report.findings))
    for number, f in enumerate(report.findings, start=1):
        folder = out / f.category
        folder.mkdir(exist_ok=True)
        for k, r in enumerate(f.results[: cfg.examples]):
            data = r.input.data
            reduced = data
            exhaustion = len(f.key) > 2 and f.key[2] in ("RecursionError", "MemoryError")
            if cfg.minimize and time.monotonic() < budget_end and not exhaustion:
                # (not stack or memory exhaustion: a smaller input may pass only because it is smaller)
                hang = f.category == "hang"
                needed = stages if f.stage != "parse" else ("parse",)
                if f.stage == "pipeline":
                    needed = ("parse", "pipeline")
                reduced = reduce_input(
                    data,
                    needed,
                    pool,
                    _same_finding(f.key, iree_exe),
                    min(budget_end, time.monotonic() + max(per_example, 3 * cfg.timeout if hang else 5.0)),
                    max_tries=8 if hang else 400,
                )
            stem = f"{number:03d}-{k + 1}-{_slug(f.stage + '-' + f.first_line())}"
            path = folder / f"{stem}.mlir"
            path.write_bytes(reduced)
            if reduced != data:
                (folder / f"{stem}.orig.mlir").write_bytes(data)
            info = [
                f"finding: {f.category} in stage {f.stage} ({len(f.results)} inputs)",
                f"first line: {f.first_line()}",
                f"input: #{r.input.index} of fuzz seed {cfg.seed}, from seed kernel {r.input.seed}",
                *(f"mutation: {m}" for m in r.input.mutations),
                f"reduced: {len(data.splitlines())} -> {len(reduced.splitlines())} lines",
                f"replay: python -m spyre_fuzz --replay {path}",
                "",
                json.dumps(_describe_result(r), indent=2, default=str),
            ]
            path.with_suffix(".txt").write_text("\n".join(info) + "\n")
            f.files.append(str(path))


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def replay(path: str, stages: Sequence[str] = STAGES, iree: bool = True, timeout: float = 10.0) -> int:
    """Run one file through the stages in this process, with tracebacks; after
    `timeout` seconds, print where every thread is and exit (a hang)."""
    import faulthandler
    import traceback


    data = Path(path).read_bytes()

    def report(event, stage, outcome):
        if event == "begin":
            print(f"-- {stage}", flush=True)
        else:
            print(f"{stage}: {json.dumps(outcome, default=str)}", flush=True)

    if timeout > 0:
        print(f"(a hang: after {timeout:g} s the stacks of all threads are printed and the process exits)", flush=True)
        faulthandler.dump_traceback_later(timeout, exit=True)
    result = evaluate(data, stages, report)
    if "cli" in result:
        print(f"cli: {json.dumps(result['cli'])}")
    bad = [s for s, o in result.items() if isinstance(o, dict) and o.get("category") in BAD]
    if bad:
        # Run the failing stage again outside the classifier, for the traceback.
        print(f"\n-- traceback of the {bad[0]} stage:")
        text = data.decode("utf-8", "replace")
        try:
            module = parse_text(text)
            if bad[0] in ("pipeline", "interpret"):
                from spyre_mlir.passes.pipelines import PassManager

                if bad[0] == "pipeline" or result.get("pipeline", {}).get("category") == "accepted":
                    PassManager.parse(PIPELINE).run(module)
            if bad[0] == "interpret":
                from spyre_mlir.interpreter import Interpreter, InterpreterOptions

                module = module if result.get("pipeline", {}).get("category") == "accepted" else parse_text(text)
                for plan in interpret_plans(module):
                    Interpreter(module, InterpreterOptions(**plan["options"])).run(plan["func"], plan["args"])
            if bad[0] == "spatial":
                spatial_check(text, module)
        except Exception:  # noqa: BLE001
            traceback.print_exc(file=sys.stdout)
    faulthandler.cancel_dump_traceback_later()
    if iree and upstream_only(data.decode("utf-8", "replace")) and (exe := find_iree_opt()):
        print(f"iree-opt: {json.dumps(iree_verdict(exe, data))}; ours: {our_verdict(result)}")
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spyre_fuzz",
        description="Seeded mutation fuzzing of spyre-mlir (parse+verify, default pipeline, interpreter; "
        "upstream-only inputs also against iree-opt).",
        epilog="Exit code: 0 when there is no internal error, hang, crash or iree-opt disagreement; 1 otherwise.",
    )
    p.add_argument("--count", type=int, default=500, help="number of mutated inputs (default 500)")
    p.add_argument("--seed", type=int, default=0, help="fuzz seed (default 0)")
    p.add_argument("--start", type=int, default=0, help="first input number (default 0)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it is a hang (default 10)")
    p.add_argument("--jobs", "-j", type=int, default=FuzzConfig().jobs, help="worker processes (default: CPUs)")
    p.add_argument("--no-iree", action="store_true", help="do not compare with iree-opt")
    p.add_argument("--no-interpret", action="store_true", help="stop after the pipeline")
    p.add_argument("--out", metavar="DIR", help="write example inputs per finding here")
    p.add_argument("--examples", type=int, default=3, help="examples per distinct finding (default 3)")
    p.add_argument("--no-minimize", action="store_true", help="write examples as generated, unreduced")
    p.add_argument("--minimize-budget", type=float, default=120.0, help="seconds for reducing examples (default 120)")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON")
    p.add_argument(
        "--seeds",
        nargs="+",
        metavar="FILE_OR_DIR",
        help="seed kernels: files, or directories of *.mlir (default, in a checkout: corpus, test kernels, examples)",
    )
    p.add_argument("--mutators", help=f"comma-separated subset of: {', '.join(sorted(MUTATORS))}")
    p.add_argument(
        "--memory-limit",
        type=int,
        default=12288,
        metavar="MiB",
        help="address space per worker, above the interpreter's own 8 GiB budget (default 12288; 0: none)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.add_argument("--replay", metavar="FILE", help="run one file through the stages here, with tracebacks, and exit")
    p.add_argument("--list-seeds", action="store_true", help="list the seed kernels and exit")
    p.add_argument("--show", type=int, metavar="N", help="print generated input N (and its mutations) and exit")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _main(args)
    except SeedError as exc:
        parser.error(str(exc))  # usage and message on stderr, exit 2
        raise  # unreachable: parser.error exits


def _main(args: argparse.Namespace) -> int:
    stages = STAGES if not args.no_interpret else ("parse", "pipeline")
    if args.replay:
        return replay(args.replay, stages, iree=not args.no_iree, timeout=args.timeout)
    seed_paths = [Path(s) for s in args.seeds] if args.seeds else None
    mutators = [m.strip() for m in args.mutators.split(",")] if args.mutators else None
    if mutators and (unknown := [m for m in mutators if m not in MUTATORS]):
        print(f"fuzz: unknown mutators: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.list_seeds:
        for s in load_seeds(seed_paths):
            print(s.name)
        return 0
    if args.show is not None:
        (x,) = generate(1, args.seed, load_seeds(seed_paths), args.show, mutators)
        print(f"// input #{x.index} of seed {args.seed}, from {x.seed}")
        for m in x.mutations:
            print(f"// {m}")
        sys.stdout.flush()
        sys.stdout.buffer.write(x.data)
        return 0
    config = FuzzConfig(
        count=args.count,
        seed=args.seed,
        start=args.start,
        timeout=args.timeout,
        jobs=args.jobs,
        iree=not args.no_iree,
        interpret=not args.no_interpret,
        examples=args.examples,
        out=Path(args.out) if args.out else None,
        minimize=not args.no_minimize,
        minimize_budget=args.minimize_budget,
        seed_paths=seed_paths,
        mutators=mutators,
        progress=not args.quiet,
        memory_limit_mb=args.memory_limit,
    )
    report = run(config)
    print(report.table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_json(), indent=2, default=str) + "\n")
    return 1 if report.bad() else 0
