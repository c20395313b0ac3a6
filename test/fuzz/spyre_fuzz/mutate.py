"""Textual mutations of seed kernels, and the inputs of a fuzz seed: input `i`
of seed `S` is a function of `(S, i)` and the seed kernels only."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spyre_fuzz.corpus import NO_SEEDS, Seed, SeedError, function_spans, load_seeds

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
