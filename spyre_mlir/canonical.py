"""Canonical bytes, identity and the compile cache (issue 12; docs/identity.md).

    canonical_bytes(module) -> bytes     the module's canonical form, finalized
    identity(module) -> "sha256:<hex>"   SHA-256 of IDENTITY_PREFIX + canonical bytes
    load_canonical(data) -> ModuleOp     the importer: parse, verify, re-encode, require equality
    CompileCache(directory)              spyre-opt's cache of pipeline outputs

The writer works on a private clone of the module, after verifying it, and:

- drops every location (the printer prints none: no debug info);
- names SSA values and block arguments by position (`%0`, `%1`, ... in op
  order, as the printer numbers values without a name hint) and block labels
  `^bb0`, `^bb1`, ... in order;
- renames private symbols (`sym_visibility = "private"`) to `@__private_N`,
  N counting definitions in op order (skipping a name another symbol of the
  same table already has), and updates every `SymbolRefAttr` that resolves
  to one, wherever it sits in an op's properties or attributes (inside
  arrays, dictionaries and parametrized attributes too);
- sorts every op's properties and attributes, and every dictionary
  attribute, by name;
- keeps public symbol names, op order and every attribute value;
- prints the result in MLIR's generic form, UTF-8.

Hints a user wrote (`spyre.slices`, `spyre.dims`) are part of the program and
stay: they change what later passes do. MLIR's "consumed hints" -- hints a
pass has used and left behind -- would be dropped (`CONSUMED_HINTS`), but
no pass of ours leaves one: the coarse-tiling pass deletes the hints it uses.

Finalization, before any bytes are returned: the bytes are parsed in a fresh
context, verified and written again, and must come out byte for byte equal;
otherwise a `CanonicalFormError` is raised and nothing is published.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.traits import SymbolTable

from spyre_mlir.diagnostics import Diagnostic, DiagnosticError

IDENTITY_PREFIX = b"spyre-mlir-identity/1\n"
"""Hashed before the canonical bytes: a new writer that changes the bytes of
some module gets a new prefix (`/2`), so old and new identities never mix."""

PRIVATE_PREFIX = "__private_"
"""Private symbols are renamed `@__private_0`, `@__private_1`, ..."""

CONSUMED_HINTS: tuple[str, ...] = ()
"""Attributes a pass leaves behind once it has used them: not part of the
program, dropped from canonical bytes. None today (see the module docstring)."""

CANONICAL_NAME = "<canonical>"
"""The file name of canonical text when it is parsed (in diagnostics)."""


class CanonicalFormError(DiagnosticError):
    """Bytes that are not the canonical form of a valid module (the importer),
    or a module whose canonical form does not re-parse or re-encode byte for
    byte (finalization). Nothing is published."""


# -- the writer ----------------------------------------------------------------


def canonical_bytes(module: Any, *, allow_unregistered: bool = False) -> bytes:
    """The canonical bytes of `module` (a `ModuleOp`, or what `spyre_mlir.parse`
    takes: a path or MLIR text), finalized.

    Raises `DiagnosticError` when the module does not verify, and
    `CanonicalFormError` when its canonical form does not re-parse in a fresh
    context, verify and re-encode to the same bytes. `allow_unregistered`:
    accept ops of unknown dialects (the fresh context accepts them too)."""
    from spyre_mlir.deep import call_deep

    module = _as_module(module, allow_unregistered)
    return call_deep(_finalized_bytes, module, allow_unregistered)


def identity(module: Any, *, allow_unregistered: bool = False) -> str:
    """`"sha256:" + hex(SHA-256(IDENTITY_PREFIX + canonical_bytes(module)))`.

    Equal for modules that differ only in SSA names, block labels, private
    symbol names, locations and attribute order; different when an op, an
    attribute value, a public symbol name or the order of ops differs."""
    return identity_of_bytes(canonical_bytes(module, allow_unregistered=allow_unregistered))


def identity_of_bytes(data: bytes) -> str:
    """The identity of canonical bytes (not checked: see `load_canonical`)."""
    return "sha256:" + hashlib.sha256(IDENTITY_PREFIX + data).hexdigest()


def load_canonical(data: bytes, *, allow_unregistered: bool = False) -> ModuleOp:
    """The importer: parse `data` in a fresh context, verify it, write it
    again and require the same bytes. Returns the module; raises
    `CanonicalFormError` for text that is not canonical (names, locations,
    attribute order, ... as written by a person) and `DiagnosticError` for
    text that is malformed. Never repairs."""
    from spyre_mlir.deep import call_deep

    return call_deep(_load_canonical, data, allow_unregistered)


def _finalized_bytes(module: ModuleOp, allow_unregistered: bool) -> bytes:
    from spyre_mlir import ir

    if not allow_unregistered:
        for op in module.walk():
            if isinstance(op, UnregisteredOp):
                raise DiagnosticError(
                    Diagnostic("error", f"no identity for a module with the unregistered operation '{op.op_name.data}'")
                )
    ir.verify(module)
    data = _write(module)
    try:
        _load_canonical(data, allow_unregistered)
    except DiagnosticError as exc:
        raise CanonicalFormError(
            Diagnostic("error", f"cannot finalize the canonical form: {exc.diagnostic.render()}")
        ) from None
    return data


def _load_canonical(data: bytes, allow_unregistered: bool) -> ModuleOp:
    from spyre_mlir import ir

    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"load_canonical takes bytes, not {type(data).__name__}")
    data = bytes(data)
    text = data.decode("utf-8", "surrogateescape")
    module = ir.parse_module(text, CANONICAL_NAME, ir.make_context(allow_unregistered=allow_unregistered))
    ir.verify(module)
    again = _write(module)
    if again != data:
        raise CanonicalFormError(Diagnostic("error", f"not in canonical form: {_first_difference(data, again)}"))
    return module


def _first_difference(given: bytes, canonical: bytes) -> str:
    given_lines = given.split(b"\n")
    canonical_lines = canonical.split(b"\n")
    for number, (a, b) in enumerate(zip(given_lines, canonical_lines, strict=False), start=1):
        if a != b:
            return f"line {number} is {_show(a)}, its canonical form {_show(b)}"
    number = min(len(given_lines), len(canonical_lines)) + 1
    return f"the text differs from its canonical form in length from line {number}"


def _show(line: bytes) -> str:
    text = line.decode("utf-8", "backslashreplace").strip()
    return repr(text if len(text) <= 120 else text[:117] + "...")


def _write(module: ModuleOp) -> bytes:
    """The writer: normalize a clone, print it generic without locations."""
    from spyre_mlir import ir

    clone = module.clone()
    _normalize(clone)
    return ir.print_ir(clone, generic=True).encode("utf-8", "surrogateescape")


def _as_module(module: Any, allow_unregistered: bool) -> ModuleOp:
    if isinstance(module, ModuleOp):
        return module
    if isinstance(module, Operation):
        raise TypeError(f"canonical form of a builtin.module, not of '{module.name}'")
    if allow_unregistered:
        from spyre_mlir import ir
        from spyre_mlir.deep import call_deep

        text, name = ir.read_source(module)
        return call_deep(ir.parse_module, text, name, ir.make_context(allow_unregistered=True))
    import spyre_mlir

    return spyre_mlir.parse(module, verify=False)  # verified by the writer


def _normalize(root: ModuleOp) -> None:
    ops = list(root.walk())
    renamer = _Renamer(ops)
    for op in ops:
        op.location = UnknownLoc()
        for result in op.results:
            result.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                block.name_hint = None
                for arg in block.args:
                    arg.name_hint = None
        for name in CONSUMED_HINTS:
            op.attributes.pop(name, None)
        tables = renamer.tables_of(op)
        for held in (op.properties, op.attributes):
            updated = {key: renamer.rewrite(held[key], tables) for key in sorted(held)}
            held.clear()
            held.update(updated)
    renamer.rename_definitions()


# -- private symbols -------------------------------------------------------------


def _symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def _is_private(op: Operation) -> bool:
    visibility = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
    return isinstance(visibility, StringAttr) and visibility.data == "private"


class _Renamer:
    """Private symbols renamed `@__private_N`, N counting definitions in op
    order (a name a kept symbol of the same table has is skipped), and the
    symbol references to them; dictionaries sorted on the way."""

    def __init__(self, ops: list[Operation]):
        self._symbols: dict[int, dict[str, Operation]] = {}
        self._tables: dict[int, tuple[Operation, ...]] = {}
        self._memo: dict[tuple[int, Attribute], Attribute] = {}
        self._ctx: Context | None = None
        self.renames: dict[tuple[int, str], str] = {}  # (id of the table, old name) -> new name
        self._definitions: list[tuple[Operation, str]] = []
        taken: dict[int, set[str]] = {}
        counter = 0
        for op in ops:
            table = op.parent_op()
            name = _symbol_name(op)
            if table is None or name is None or not _is_private(op) or not table.has_trait(SymbolTable):
                continue
            if self.symbols(table).get(name) is not op:
                continue  # a redefinition (does not verify)
            kept = taken.get(id(table))
            if kept is None:
                kept = taken[id(table)] = {n for n, s in self.symbols(table).items() if not _is_private(s)}
            while f"{PRIVATE_PREFIX}{counter}" in kept:
                counter += 1
            new = f"{PRIVATE_PREFIX}{counter}"
            counter += 1
            self.renames[(id(table), name)] = new
            self._definitions.append((op, new))

    def symbols(self, table: Operation) -> dict[str, Operation]:
        """The symbols defined directly in `table`'s region, by name (the
        first of a name: a redefinition does not verify)."""
        found = self._symbols.get(id(table))
        if found is None:
            found = self._symbols[id(table)] = {}
            block = table.regions[0].blocks.first if table.regions else None
            for op in block.ops if block is not None else ():
                name = _symbol_name(op)
                if name is not None:
                    found.setdefault(name, op)
        return found

    def tables_of(self, op: Operation) -> tuple[Operation, ...]:
        """The symbol tables a reference held by `op` is looked up in: the
        nearest (`op` itself if it is one, as MLIR's lookupNearestSymbolFrom),
        then the enclosing ones (so that a reference MLIR would not resolve is
        still renamed with its symbol)."""
        if not self.renames:
            return ()
        parent = op.parent_op()
        outer = () if parent is None else self._tables.get(id(parent))  # parents come first in op order
        if outer is None:
            chain: list[Operation] = []
            anchor = parent
            while anchor is not None:
                if anchor.has_trait(SymbolTable):
                    chain.append(anchor)
                anchor = anchor.parent_op()
            outer = tuple(chain)
        tables = ((op,) if op.has_trait(SymbolTable) else ()) + outer
        self._tables[id(op)] = tables
        return tables

    def rename_definitions(self) -> None:
        for op, new in self._definitions:
            held = op.properties if "sym_name" in op.properties else op.attributes
            held["sym_name"] = StringAttr(new)

    def rename_ref(self, ref: SymbolRefAttr, tables: tuple[Operation, ...]) -> SymbolRefAttr:
        path = [ref.root_reference.data, *(r.data for r in ref.nested_references.data)]
        table = next((t for t in tables if path[0] in self.symbols(t)), None)
        if table is None:
            return ref
        new_path = []
        for i, name in enumerate(path):
            new_path.append(self.renames.get((id(table), name), name))
            symbol = self.symbols(table).get(name)
            if symbol is None or not symbol.has_trait(SymbolTable):
                new_path.extend(path[i + 1 :])
                break
            table = symbol
        if new_path == path:
            return ref
        return SymbolRefAttr(new_path[0], new_path[1:])

    def settle_affine(self, attr: AffineMapAttr | AffineSetAttr) -> Attribute:
        """`attr` as it reads back from its printed text. xDSL keeps an affine
        expression as written (MLIR simplifies it), and the printed text of a
        right-nested sum (`a + (b + c)`, built by code) reads back as another
        tree (`(a + b) + c`) that prints differently; the text of that tree
        reads back as itself. Same value, so same identity."""
        from xdsl.parser import Parser

        from spyre_mlir.analysis.affine import format_map, format_set

        def text(a: AffineMapAttr | AffineSetAttr) -> str:
            if isinstance(a, AffineMapAttr):
                return f"affine_map<{format_map(a.data)}>"
            return f"affine_set<{format_set(a.data)}>"

        if self._ctx is None:
            from spyre_mlir.ir import make_context

            self._ctx = make_context()
        current = attr
        for _ in range(4):
            printed = text(current)
            again = Parser(self._ctx, printed, CANONICAL_NAME).parse_attribute()
            if not isinstance(again, AffineMapAttr | AffineSetAttr) or text(again) == printed:
                return current
            current = again
        return current  # not settled: finalization reports it

    def rewrite(self, attr: Attribute, tables: tuple[Operation, ...]) -> Attribute:
        """`attr` with its symbol references renamed and its dictionaries sorted."""
        if isinstance(attr, SymbolRefAttr):
            return self.rename_ref(attr, tables) if tables else attr
        if isinstance(attr, StringAttr):  # the commonest leaf
            return attr
        key: tuple[int, Attribute] | None = (id(tables[0]) if tables else 0, attr)
        try:
            cached = self._memo.get(key)  # pyright: ignore[reportArgumentType]
        except TypeError:  # an unhashable attribute: not memoized
            cached, key = None, None
        if cached is not None:
            return cached
        result = attr
        if isinstance(attr, AffineMapAttr | AffineSetAttr):
            result = self.settle_affine(attr)
        elif isinstance(attr, ArrayAttr):
            items = tuple(self.rewrite(a, tables) for a in attr.data)
            if any(a is not b for a, b in zip(items, attr.data, strict=True)):
                result = ArrayAttr(items)
        elif isinstance(attr, DictionaryAttr):
            entries = {k: self.rewrite(attr.data[k], tables) for k in sorted(attr.data)}
            if list(entries) != list(attr.data) or any(entries[k] is not attr.data[k] for k in entries):
                result = DictionaryAttr(entries)
        elif isinstance(attr, ParametrizedAttribute):
            params = attr.parameters
            new = tuple(self.rewrite(p, tables) if isinstance(p, Attribute) else p for p in params)
            if any(a is not b for a, b in zip(new, params, strict=True)):
                result = type(attr).new(new)
        if key is not None:
            self._memo[key] = result
        return result


# -- the compile cache -------------------------------------------------------------

CACHE_SCHEMA = "spyre-opt-cache/1"


def tool_version() -> str:
    """What the output of a pipeline depends on besides its input and
    options: the versions of spyre-mlir and xDSL, and a digest of the
    package's source (so that an edited checkout installed editable, whose
    version does not change, never reads entries of its former self)."""
    return f"spyre-mlir {_distribution_version('spyre-mlir')}; xdsl {_distribution_version('xdsl')}; source {_source_digest()}"


def _distribution_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


@lru_cache(maxsize=1)
def _source_digest() -> str:
    import importlib.util

    folders = [os.path.dirname(os.path.abspath(__file__))]
    for sub in ("dialects", "passes", "tools", "interpreter"):
        spec = importlib.util.find_spec(f"spyre_mlir.{sub}")
        if spec is not None and spec.submodule_search_locations:
            folders.extend(spec.submodule_search_locations)
    digest = hashlib.sha256()
    for folder in folders:
        for base, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for file in sorted(files):
                if file.endswith(".py"):
                    path = os.path.join(base, file)
                    digest.update(os.path.relpath(path, folder).encode("utf-8", "surrogateescape") + b"\0")
                    with open(path, "rb") as f:
                        digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()[:16]


class CompileCache:
    """Pipeline outputs on disk, one file per key (`DIRECTORY/<key>.entry`).

    `key(identity, pipeline, options)` is the SHA-256 of the tool version
    (`tool_version()`), the input's identity, the exact pipeline text and the
    options (a JSON-able mapping). An entry is a JSON header line (schema,
    key, SHA-256 and length of the output, identity and pipeline for people
    reading it) and the output text. `get` returns None (a miss) for a
    missing, truncated or otherwise damaged entry; `put` replaces an entry
    atomically (a temporary file renamed over it) and returns False when it
    cannot write. The cache can be deleted at any time."""

    SUFFIX = ".entry"

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = os.fspath(directory)
        self.hits = 0
        self.misses = 0
        self.damaged = 0
        self.stored = 0
        self.not_stored = 0
        self.without_identity = 0  # inputs whose canonical form does not finalize: not cached

    def key(self, identity: str, pipeline: str, options: Mapping[str, Any] | None = None) -> str:
        material = {
            "schema": CACHE_SCHEMA,
            "tool": tool_version(),
            "identity": identity,
            "pipeline": pipeline,
            "options": dict(options or {}),
        }
        blob = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(blob.encode("ascii")).hexdigest()

    def path(self, key: str) -> str:
        return os.path.join(self.directory, key + self.SUFFIX)

    def get(self, key: str) -> str | None:
        try:
            with open(self.path(key), "rb") as f:
                data = f.read()
        except OSError:
            self.misses += 1
            return None
        output = self._decode(key, data)
        if output is None:
            self.damaged += 1
            self.misses += 1
            return None
        self.hits += 1
        return output

    @staticmethod
    def _decode(key: str, data: bytes) -> str | None:
        head, newline, body = data.partition(b"\n")
        if not newline:
            return None
        try:
            header = json.loads(head)
        except ValueError:
            return None
        if not isinstance(header, dict) or header.get("schema") != CACHE_SCHEMA or header.get("key") != key:
            return None
        if header.get("length") != len(body) or header.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        return body.decode("utf-8", "surrogateescape")

    def put(self, key: str, output: str, *, identity: str = "", pipeline: str = "") -> bool:
        body = output.encode("utf-8", "surrogateescape")
        header = {
            "schema": CACHE_SCHEMA,
            "key": key,
            "length": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
            "identity": identity,
            "pipeline": pipeline,
        }
        data = json.dumps(header, sort_keys=True, ensure_ascii=True).encode("ascii") + b"\n" + body
        tmp = None
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key[:16]}.", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.path(key))
        except OSError:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            self.not_stored += 1
            return False
        self.stored += 1
        return True

    def stats(self) -> str:
        def n(count: int, word: str) -> str:
            return f"{count} {word}" + ("" if count == 1 else "es" if word.endswith("s") else "s")

        damaged = f", {self.damaged} damaged" if self.damaged else ""
        unstored = f", {self.not_stored} not stored" if self.not_stored else ""
        no_identity = f", {self.without_identity} without identity" if self.without_identity else ""
        return f"{n(self.hits, 'hit')}, {n(self.misses, 'miss')}{damaged}, {self.stored} stored{unstored}{no_identity}"
