"""Canonical bytes, identity, finalization and spyre-opt's compile cache
(issue 12; spyre_mlir.canonical, docs/identity.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, corpus_files

import spyre_mlir
from spyre_mlir import canonical
from spyre_mlir.canonical import CanonicalFormError, CompileCache, load_canonical
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.passes.pipelines import PassManager
from spyre_mlir.tools.spyre_opt import main

BASE = """\
func.func private @helper(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %r = arith.addi %x, %c1 : index
  return %r : index
}
func.func private @unused() -> ()
func.func @kernel(%a: index, %flag: i1) -> index attributes {grid = [4], spyre.note = "k"} {
  %v = func.call @helper(%a) : (index) -> index
  %two = arith.constant 2 : index
  %w = arith.muli %v, %two : index
  cf.cond_br %flag, ^then(%w : index), ^else
^then(%t: index):
  return %t : index
^else:
  return %a : index
}
"""

SAME = {
    "private symbol (definition and call)": BASE.replace("@helper", "@other_name"),
    "private symbols swapped names": BASE.replace("@helper", "@tmp").replace("@unused", "@helper").replace("@tmp", "@unused"),
    "SSA names": re.sub(r"%([a-z]\w*)", r"%renamed_\1", BASE),
    "block labels": BASE.replace("^then", "^bb7").replace("^else", "^exit"),
    "locations": BASE.replace("return %t : index\n", "return %t : index loc(unknown)\n").replace(
        ": index\n", ': index loc("other.py":3:4)\n'
    ),
    "attribute order": BASE.replace('{grid = [4], spyre.note = "k"}', '{spyre.note = "k", grid = [4]}'),
    "layout of the text": BASE.replace("  ", "    ").replace("\n", "\n\n"),
}

DIFFERENT = {
    "an op": BASE.replace("arith.muli %v, %two", "arith.addi %v, %two"),
    "an attribute value": BASE.replace("grid = [4]", "grid = [8]"),
    "a constant": BASE.replace("arith.constant 2 : index", "arith.constant 3 : index"),
    "a public symbol name": BASE.replace("@kernel", "@kernel2"),
    "op order": BASE.replace(
        "  %v = func.call @helper(%a) : (index) -> index\n  %two = arith.constant 2 : index\n",
        "  %two = arith.constant 2 : index\n  %v = func.call @helper(%a) : (index) -> index\n",
    ),
    "symbol order": BASE.replace("func.func private @unused() -> ()\n", "").replace(
        "func.func private @helper", "func.func private @unused() -> ()\nfunc.func private @helper"
    ),
    "a private symbol made public": BASE.replace("func.func private @helper", "func.func @helper"),
    "a successor": BASE.replace("^then(%w : index), ^else", "^then(%a : index), ^else"),
}


def test_identity_form():
    ident = spyre_mlir.identity(BASE)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", ident)
    assert ident == canonical.identity_of_bytes(spyre_mlir.canonical_bytes(BASE))


@pytest.mark.parametrize("change", list(SAME))
def test_identity_unchanged(change):
    variant = SAME[change]
    assert variant != BASE
    assert spyre_mlir.canonical_bytes(variant) == spyre_mlir.canonical_bytes(BASE)
    assert spyre_mlir.identity(variant) == spyre_mlir.identity(BASE)


@pytest.mark.parametrize("change", list(DIFFERENT))
def test_identity_changed(change):
    variant = DIFFERENT[change]
    assert variant != BASE
    spyre_mlir.parse(variant)  # still a valid program
    assert spyre_mlir.identity(variant) != spyre_mlir.identity(BASE)


def test_canonical_text():
    text = spyre_mlir.canonical_bytes(BASE).decode()
    assert "loc(" not in text
    assert not re.search(r"%[A-Za-z_]", text)  # every value numbered
    assert not re.search(r"\^(?!bb\d)", text)  # every block ^bbN
    assert "@helper" not in text and "@unused" not in text
    assert text.count('sym_name = "__private_') == 2
    assert "callee = @__private_0" in text
    assert 'sym_name = "kernel"' in text
    assert '{grid = [4], spyre.note = "k"}' in text  # sorted by name (i64 elements untyped, as MLIR prints)
    assert text.startswith('"builtin.module"() ({')


def test_the_module_is_not_changed():
    module = spyre_mlir.parse(BASE)
    before = spyre_mlir.ir.print_ir(module, debuginfo=True)
    spyre_mlir.identity(module)
    assert spyre_mlir.ir.print_ir(module, debuginfo=True) == before


NESTED = """\
module {
  module @inner {
    func.func private @impl(%x: index) -> index {
      return %x : index
    }
    func.func @entry(%x: index) -> index {
      %r = func.call @impl(%x) : (index) -> index
      return %r : index
    }
  }
  func.func private @__private_0() -> ()
  func.func @main(%x: index) -> index attributes {spyre.refs = [@inner::@entry, @inner::@impl, @__private_0]} {
    return %x : index
  }
}
"""


def test_nested_symbol_tables():
    text = spyre_mlir.canonical_bytes(NESTED).decode()
    assert 'sym_name = "inner"' in text and "@inner::@entry" in text  # public: kept
    assert "@impl" not in text and "callee = @__private_0" in text
    assert "spyre.refs = [@inner::@entry, @inner::@__private_0, @__private_1]" in text
    renamed = NESTED.replace("@impl", "@impl2").replace("@__private_0", "@helper")
    assert spyre_mlir.identity(renamed) == spyre_mlir.identity(NESTED)
    assert spyre_mlir.identity(NESTED.replace("@entry", "@entry2")) != spyre_mlir.identity(NESTED)


def test_private_names_avoid_public_ones():
    src = "func.func private @a() -> ()\nfunc.func @__private_0() {\n  func.call @a() : () -> ()\n  return\n}\n"
    text = spyre_mlir.canonical_bytes(src).decode()
    assert 'sym_name = "__private_1"' in text and "callee = @__private_1" in text
    spyre_mlir.parse(text)  # no redefinition


def test_symbol_references_inside_attributes():
    src = BASE.replace('spyre.note = "k"', 'spyre.note = [@helper, {fn = @helper}]')
    text = spyre_mlir.canonical_bytes(src).decode()
    assert "@helper" not in text
    assert "[@__private_0, {fn = @__private_0}]" in text
    assert spyre_mlir.identity(src) == spyre_mlir.identity(src.replace("@helper", "@h"))


def test_nested_dictionaries_are_sorted():
    a = BASE.replace('spyre.note = "k"', "spyre.note = {z = 1, a = {y = 2, b = 3}}")
    b = BASE.replace('spyre.note = "k"', "spyre.note = {a = {b = 3, y = 2}, z = 1}")
    assert spyre_mlir.canonical_bytes(a) == spyre_mlir.canonical_bytes(b)
    assert "{a = {b = 3 : i64, y = 2 : i64}, z = 1 : i64}" in spyre_mlir.canonical_bytes(a).decode()


def test_hints_are_part_of_the_program():
    hinted = BASE.replace('spyre.note = "k"', "spyre.slices = [[2, [0]]]")
    assert spyre_mlir.identity(hinted) != spyre_mlir.identity(BASE.replace(', spyre.note = "k"', ""))


# -- malformed and non-canonical input publishes nothing --------------------------

MALFORMED = {
    "undefined SSA value": BASE.replace("arith.muli %v, %two", "arith.muli %v, %nowhere"),
    "failed verifier": BASE.replace("return %t : index", "return"),
    "syntax": BASE.replace("func.call @helper(%a)", "func.call @helper(%a"),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_input_has_no_identity(kind):
    with pytest.raises(DiagnosticError):
        spyre_mlir.canonical_bytes(MALFORMED[kind])
    with pytest.raises(DiagnosticError):
        spyre_mlir.identity(MALFORMED[kind])


def test_an_unverified_module_is_verified_first():
    module = spyre_mlir.parse(MALFORMED["failed verifier"], verify=False)
    with pytest.raises(DiagnosticError, match="return"):
        spyre_mlir.identity(module)


def test_non_canonical_bytes_are_refused():
    data = spyre_mlir.canonical_bytes(BASE)
    assert canonical.identity_of_bytes(data) == spyre_mlir.identity(load_canonical(data))
    for text in (
        BASE,  # names, custom syntax
        data.decode().replace("%1", "%x"),  # a name
        data.decode().replace('{grid = [4], spyre.note = "k"}', '{spyre.note = "k", grid = [4]}'),  # order
        data.decode().replace("index\n", 'index loc("f":1:1)\n', 1),  # a location
        data.decode() + "\n",  # a byte more
    ):
        with pytest.raises(CanonicalFormError):
            load_canonical(text.encode())
    with pytest.raises(DiagnosticError):
        load_canonical(data.replace(b"func.return", b"func.retrun"))


def test_finalization_requires_byte_equality(monkeypatch):
    """A writer whose output does not re-encode to itself publishes nothing."""
    write = canonical._write
    calls = []

    def drifting(module):
        calls.append(module)
        data = write(module)
        return data if len(calls) > 1 else data + b"// a comment the parser drops\n"

    monkeypatch.setattr(canonical, "_write", drifting)
    with pytest.raises(CanonicalFormError, match="cannot finalize"):
        spyre_mlir.canonical_bytes(BASE)
    assert len(calls) == 2


def test_unregistered_ops():
    src = '"foo.bar"() {x = 1} : () -> ()\n'
    with pytest.raises(DiagnosticError):
        spyre_mlir.identity(src)
    a = canonical.identity(src, allow_unregistered=True)
    assert a == canonical.identity(src.replace("x = 1", "x = 1"), allow_unregistered=True)
    assert a != canonical.identity(src.replace("x = 1", "x = 2"), allow_unregistered=True)


# -- every kernel we have: canonical bytes re-parse and re-encode byte for byte ------


def _kernel_files() -> list[Path]:
    files = corpus_files(include_inter_tile=True)
    files += sorted((REPO / "examples").glob("*.mlir"))
    files += sorted((REPO / "test" / "unit" / "kernels").rglob("*.mlir"))
    return files


@pytest.mark.parametrize("path", _kernel_files(), ids=lambda p: str(p.relative_to(p.parents[1])))
def test_kernels_round_trip_byte_for_byte(path):
    module = spyre_mlir.parse(path)
    data = spyre_mlir.canonical_bytes(module)
    again = load_canonical(data)  # fresh context, verified, re-encoded: equal
    assert spyre_mlir.canonical_bytes(again) == data
    assert spyre_mlir.identity(again) == spyre_mlir.identity(module)
    # The same kernel with every SSA value renamed has the same identity.
    text = path.read_text()
    renamed = re.sub(r"%([A-Za-z_][\w$.]*)", r"%q_\1", text)
    assert renamed != text or "%" not in text
    assert spyre_mlir.identity(renamed) == spyre_mlir.identity(module)


def test_corpus_kernels_are_tested_when_present():
    files = corpus_files()
    if not files:
        pytest.skip("../shared/corpus/ktir not present")
    assert set(files) <= set(_kernel_files())


def test_right_nested_affine_sums_settle():
    """consume_dependency_set.mlir parses into affine sets holding sums nested
    to the right (the ktdp parser builds them); their text reads back as
    another tree that prints differently: the writer settles them so that
    finalization succeeds."""
    path = REPO / "test" / "unit" / "kernels" / "inter_tile" / "consume_dependency_set.mlir"
    data = spyre_mlir.canonical_bytes(path)
    assert spyre_mlir.canonical_bytes(load_canonical(data)) == data


def test_pipeline_output_has_identity():
    path = REPO / "examples" / "softmax_rows.mlir"
    module = spyre_mlir.parse(path)
    PassManager.from_pipeline("ktir-to-schedule").run(module)
    data = spyre_mlir.canonical_bytes(module)
    assert spyre_mlir.canonical_bytes(load_canonical(data)) == data


# -- spyre-opt --print-identity -----------------------------------------------------


def test_spyre_opt_print_identity(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    assert main([str(src), "--print-identity"]) == 0
    assert capsys.readouterr().out == spyre_mlir.identity(BASE) + "\n"
    assert main([str(src), "--print-identity", "-p", "canonicalize"]) == 0
    out = capsys.readouterr().out
    module = spyre_mlir.parse(BASE)
    PassManager.parse("canonicalize").run(module)
    assert out == spyre_mlir.identity(module) + "\n"


def test_spyre_opt_print_identity_of_malformed_input(tmp_path, capsys):
    src = tmp_path / "bad.mlir"
    src.write_text(MALFORMED["undefined SSA value"])
    assert main([str(src), "--print-identity"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "use of undeclared SSA value name" in captured.err


# -- the compile cache ----------------------------------------------------------------


@pytest.fixture
def pipeline_runs(monkeypatch):
    """The number of times a pipeline ran (PassManager.run calls)."""
    runs = []
    run = PassManager.run

    def counting(self, module):
        runs.append(self.names)
        return run(self, module)

    monkeypatch.setattr(PassManager, "run", counting)
    return runs


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.entry")) if directory.exists() else []


def test_cache_hit_skips_the_pipeline(tmp_path, capsys, pipeline_runs):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    cache = tmp_path / "cache"
    assert main([str(src), "-p", "cse", "--cache-dir", str(cache)]) == 0
    first = capsys.readouterr()
    assert len(pipeline_runs) == 1 and len(_entries(cache)) == 1
    assert main([str(src), "-p", "cse", "--cache-dir", str(cache), "--cache-stats"]) == 0
    second = capsys.readouterr()
    assert len(pipeline_runs) == 1  # not run again
    assert second.out == first.out
    assert "1 hit, 0 misses" in second.err
    assert main([str(src), "-p", "cse"]) == 0  # without the cache: the same output
    assert capsys.readouterr().out == first.out
    assert len(pipeline_runs) == 2


def test_cache_stats_never_change_stdout(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    outs = []
    for extra in ([], ["--cache-stats"], ["--cache-stats"]):
        assert main([str(src), "-p", "cse", "--cache-dir", str(tmp_path / "c"), *extra]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.parametrize(
    "first, second",
    [
        (["-p", "cse"], ["-p", "canonicalize"]),
        (["-p", "cse"], ["-p", "cse,cse"]),
        (["-p", "cse"], ["--pipeline", "default"]),
        (["-p", "cse"], ["-p", "cse", "--mlir-print-op-generic"]),
        (["-p", "cse"], ["-p", "cse", "--mlir-print-debuginfo"]),
        (["-p", "cse"], ["-p", "cse", "--print-identity"]),
        (["-p", "ktdp-hbm-roundtrip"], ["-p", "ktdp-hbm-roundtrip{chain-in-lx=true}"]),
    ],
)
def test_cache_other_pipeline_or_option_misses(tmp_path, capsys, pipeline_runs, first, second):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert main([str(src), *first, *cache]) == 0
    assert main([str(src), *second, *cache]) == 0
    assert main([str(src), *second, *cache]) == 0
    assert len(pipeline_runs) == 2  # the third run hits the second's entry
    capsys.readouterr()


def test_cache_other_tool_version_misses(tmp_path, capsys, pipeline_runs, monkeypatch):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    args = [str(src), "-p", "cse", "--cache-dir", str(tmp_path / "cache")]
    assert main(args) == 0
    assert main(args) == 0
    assert len(pipeline_runs) == 1
    monkeypatch.setattr(canonical, "tool_version", lambda: "spyre-mlir 99.0; xdsl 0; source x")
    assert main(args) == 0
    assert len(pipeline_runs) == 2
    capsys.readouterr()


def test_cache_key_covers_the_spelling(tmp_path, capsys, pipeline_runs):
    """Same identity, other SSA names: the output keeps the input's names, so
    the entry of one spelling is not the output of the other."""
    a, b = tmp_path / "a.mlir", tmp_path / "b.mlir"
    a.write_text(BASE)
    b.write_text(SAME["SSA names"])
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert main([str(a), "-p", "cse", *cache]) == 0
    out_a = capsys.readouterr().out
    assert main([str(b), "-p", "cse", *cache]) == 0
    out_b = capsys.readouterr().out
    assert len(pipeline_runs) == 2
    assert "%renamed_v" in out_b and "%renamed_v" not in out_a


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"",  # empty
        lambda data: b"garbage\n" + data,  # no header
        lambda data: data.replace(b"func.func", b"func.fumc", 1),  # the output changed
        lambda data: data.replace(b'"schema": "spyre-opt-cache/1"', b'"schema": "other"'),
    ],
    ids=["truncated", "empty", "no-header", "body-changed", "other-schema"],
)
def test_cache_damaged_entry_is_a_miss(tmp_path, capsys, pipeline_runs, damage):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    cache = tmp_path / "cache"
    args = [str(src), "-p", "cse", "--cache-dir", str(cache), "--cache-stats"]
    assert main(args) == 0
    expected = capsys.readouterr().out
    (entry,) = _entries(cache)
    entry.write_bytes(damage(entry.read_bytes()))
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert "0 hits, 1 miss, 1 damaged, 1 stored" in captured.err
    assert len(pipeline_runs) == 2
    assert main(args) == 0  # overwritten: a hit again
    assert capsys.readouterr().out == expected
    assert len(pipeline_runs) == 2


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_cache_malformed_input_stores_nothing(tmp_path, capsys, kind):
    src = tmp_path / "bad.mlir"
    src.write_text(MALFORMED[kind])
    cache = tmp_path / "cache"
    assert main([str(src), "-p", "cse", "--cache-dir", str(cache)]) == 1
    assert capsys.readouterr().out == ""
    assert _entries(cache) == []


def test_cache_failed_pipeline_stores_nothing(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    cache = tmp_path / "cache"
    # a pass that fails (slices=0 is refused): an error, nothing stored
    assert main([str(src), "-p", "ktdp-extract-compute-groups,spyre-coarse-tile{slices=0}", "--cache-dir", str(cache)]) == 1
    assert _entries(cache) == []
    capsys.readouterr()


def test_cache_is_off_by_default_and_from_the_environment(tmp_path, capsys, monkeypatch, pipeline_runs):
    src = tmp_path / "k.mlir"
    src.write_text(BASE)
    monkeypatch.delenv("SPYRE_OPT_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main([str(src), "-p", "cse", "--cache-stats"]) == 0
    assert "compile cache off" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.entry"))
    monkeypatch.setenv("SPYRE_OPT_CACHE_DIR", str(tmp_path / "env-cache"))
    assert main([str(src), "-p", "cse"]) == 0
    assert main([str(src), "-p", "cse"]) == 0
    assert len(_entries(tmp_path / "env-cache")) == 1
    assert len(pipeline_runs) == 2  # off, then one miss and one hit
    assert main([str(src), "-p", "cse", "--no-cache"]) == 0
    assert len(pipeline_runs) == 3
    capsys.readouterr()


def test_cache_off_for_passes_that_write_files(tmp_path, capsys):
    src = REPO / "examples" / "softmax_rows.mlir"
    cache = tmp_path / "cache"
    out = tmp_path / "bundle"
    args = [str(src), "--pipeline", f"ktir-to-bundle{{out-dir={out},format=ktir}}", "--cache-dir", str(cache), "--cache-stats"]
    assert main(args) == 0
    assert "compile cache off (pass 'spyre-emit-bundle'" in capsys.readouterr().err
    (out / "bundle.mlir").unlink()
    assert main(args) == 0
    assert (out / "bundle.mlir").exists()  # written again
    assert _entries(cache) == []
    capsys.readouterr()


def test_compile_cache_api(tmp_path, monkeypatch):
    cache = CompileCache(tmp_path / "c")
    ident = spyre_mlir.identity(BASE)
    key = cache.key(ident, "-p cse", {"generic": False})
    assert key != cache.key(ident, "-p cse", {"generic": True})
    assert key != cache.key(ident, "-p canonicalize", {"generic": False})
    assert key != cache.key(spyre_mlir.identity(DIFFERENT["an op"]), "-p cse", {"generic": False})
    assert cache.get(key) is None
    assert cache.put(key, "text \u00e9\n")
    assert cache.get(key) == "text \u00e9\n"
    assert not list((tmp_path / "c").glob("*.tmp"))  # written through a renamed temporary
    other = cache.key(ident, "-p cse", {"generic": True})
    (tmp_path / "c" / f"{other}.entry").write_bytes((tmp_path / "c" / f"{key}.entry").read_bytes())
    assert cache.get(other) is None  # an entry under another key's name
    monkeypatch.setattr(canonical, "tool_version", lambda: "another")
    assert cache.key(ident, "-p cse", {"generic": False}) != key
    blocked = CompileCache(tmp_path / "file")
    (tmp_path / "file").write_text("not a directory")
    assert blocked.put(key, "x") is False and blocked.not_stored == 1


def test_tool_version_names_the_versions():
    version = canonical.tool_version()
    assert version.startswith("spyre-mlir ") and "xdsl " in version and "source " in version


def test_deeply_nested_regions(tmp_path, capsys):
    n = 2000
    body = ["func.func @deep(%c: i1) {"]
    body += ["  " * (i + 1) + "scf.if %c {" for i in range(n)]
    body += ["  " * (i + 1) + "}" for i in reversed(range(n))]
    body += ["  return", "}"]
    src = tmp_path / "deep.mlir"
    src.write_text("\n".join(body) + "\n")
    ident = spyre_mlir.identity(src)
    assert main([str(src), "--print-identity"]) == 0
    assert capsys.readouterr().out == ident + "\n"
