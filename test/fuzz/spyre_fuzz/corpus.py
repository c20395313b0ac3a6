"""The seed kernels the fuzzer mutates: files and directories of `*.mlir`,
each file whole and each function of a multi-function file on its own (with
the aliases and callees it needs)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
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
