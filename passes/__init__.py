"""The one pass registry: dashed pass name -> where its class lives.

Two parts, in this order (`spyre-opt --list-passes` shows them so):

- `SPYRE_PASSES`: our passes, as data: dashed name -> "module:Class". Each
  lives in its own module `passes/<stage>/<name_with_underscores>.py` (stage:
  frontend, bundle, schedule, spatial) and its `name` equals its key here
  (checked by test/unit/test_registry.py); the module is imported only when
  the pass is asked for. What each one needs of its input and what its
  output is (its stage contract, which the pass manager checks) is declared
  in `contracts.CONTRACTS` (test/unit/test_contracts.py: one per pass).
- `UPSTREAM_PASSES`: a named allow-list of xDSL's transformations that make
  sense on KTIR. Only pure IR-to-IR rewrites on func/arith/tensor/linalg/
  scf/math/affine are admitted, each after reading its source: nothing that
  runs a program (xDSL's `mlir-opt`), reads or writes a file named in its
  options (`apply-pdl{pdl_file=...}`, `eqsat-add-costs{cost_file=...}`),
  prints to stdout (`eqsat-serialize-egraph`), or targets another stack
  (riscv, x86, csl, stencil, gpu, ...). Everything else in
  `xdsl.transforms` is deliberately not reachable from `spyre-opt -p` or
  `PassManager.parse`.

To admit another upstream pass: read its module (and what it imports from
`xdsl.transforms`), check the points above, add it here with the reason.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import re
import textwrap
import types
import typing
from collections.abc import Callable

from xdsl.passes import ModulePass

SPYRE_PASSES: dict[str, str] = {
    "ktdf-build-pipelines": "spyre_mlir.passes.schedule.ktdf_build_pipelines:KtdfBuildPipelinesPass",
    "ktdf-expose-reduction-loops": "spyre_mlir.passes.schedule.ktdf_expose_reduction_loops:ExposeReductionLoopsPass",
    "ktdf-check-schedule": "spyre_mlir.passes.schedule.ktdf_check_schedule:KtdfCheckSchedulePass",
    "ensure-device-declaration": "spyre_mlir.passes.schedule.ensure_device_declaration:EnsureDeviceDeclarationPass",
    "ktdp-check-inter-tile": "spyre_mlir.passes.frontend.ktdp_check_inter_tile:KtdpCheckInterTilePass",
    "ktdp-extract-compute-groups": "spyre_mlir.passes.frontend.ktdp_extract_compute_groups:KtdpExtractComputeGroupsPass",
    "ktdp-hbm-roundtrip": "spyre_mlir.passes.frontend.ktdp_hbm_roundtrip:KtdpHbmRoundtripPass",
    "ktdp-normalize-memory-space": "spyre_mlir.passes.frontend.ktdp_normalize_memory_space:KtdpNormalizeMemorySpacePass",
    "ktir-legality-check": "spyre_mlir.passes.schedule.ktir_legality_check:KtirLegalityCheckPass",
    "spatial-tile": "spyre_mlir.passes.spatial.spatial_tile:SpatialTilePass",
    "spatial-place": "spyre_mlir.passes.spatial.spatial_place:SpatialPlacePass",
    "spatial-fuse-readers": "spyre_mlir.passes.spatial.spatial_fuse_readers:SpatialFuseReadersPass",
    "spatial-size-buffers": "spyre_mlir.passes.spatial.spatial_size_buffers:SpatialSizeBuffersPass",
    "spatial-synthesize-handshakes": "spyre_mlir.passes.spatial.spatial_synthesize_handshakes:SpatialSynthesizeHandshakesPass",
    "spatial-verify": "spyre_mlir.passes.spatial.spatial_verify:SpatialVerifyPass",
    "spyre-coarse-tile": "spyre_mlir.passes.bundle.spyre_coarse_tile:SpyreCoarseTilePass",
    "spyre-distribute-work": "spyre_mlir.passes.bundle.spyre_distribute_work:SpyreDistributeWorkPass",
    "spyre-emit-bundle": "spyre_mlir.passes.bundle.spyre_emit_bundle:SpyreEmitBundlePass",
    "spyre-fold-reshapes": "spyre_mlir.passes.frontend.spyre_fold_reshapes:SpyreFoldReshapesPass",
    "spyre-physicalize-layouts": "spyre_mlir.passes.frontend.spyre_physicalize_layouts:SpyrePhysicalizeLayoutsPass",
    "spyre-plan-scratchpad": "spyre_mlir.passes.bundle.spyre_plan_scratchpad:SpyrePlanScratchpadPass",
    "spyre-raise-counted-loops": "spyre_mlir.passes.frontend.spyre_raise_counted_loops:SpyreRaiseCountedLoopsPass",
    "spyre-unroll-loops": "spyre_mlir.passes.bundle.spyre_unroll_loops:SpyreUnrollLoopsPass",
}
"""Passes defined in this project."""

BEYOND_THE_KERNEL: frozenset[str] = frozenset({
    "spyre-emit-bundle",  # writes the bundle: the module becomes @sdsc_bundle
    "spatial-tile",  # the kernel becomes a spatial.program
    "spatial-place",  # these take a spatial.program in their phase
    "spatial-fuse-readers",
    "spatial-size-buffers",
    "spatial-synthesize-handshakes",
})
"""Our passes whose output is not the kernel they were given (or whose input is
not a kernel): translation validation runs what they produce against the
source (test_coarse_tiling.py, test_ktir_to_spatial.py), not the kernel
before and after."""


UPSTREAM_PASSES: dict[str, str] = {
    # name: one-line summary for --list-passes where xDSL's class docstring has
    # none or an unhelpful one ("": the docstring's first sentence)
    # Generic clean-ups (any dialect; patterns and folders of the ops themselves).
    "canonicalize": "",
    "cse": "Eliminate common subexpressions (pure ops with equal operands and attributes).",
    "dce": "Remove dead operations (unused results, no side effects) and unreachable blocks.",
    "licm": "",
    "control-flow-hoist": "",
    # linalg on tensors.
    "linalg-generalize-named-ops": "",
    "linalg-fuse-multiply-add": "",
    "lift-arith-to-linalg": "",
    # affine and scf loops.
    "lower-affine": "Lower affine.for/apply/load/store to scf and arith.",
    "scf-for-loop-flatten": "",
    "scf-for-loop-range-folding": "Fold an induction variable's add/mul into the scf.for bounds.",
    "scf-for-loop-unroll": "",
    "scf-parallel-loop-tiling": "Tile the innermost scf.parallel loops by the given tile sizes.",
    # math and arith.
    "expand-math-to-polynomials": "",
    "arith-add-fastmath": "",
}
"""Upstream (xDSL) passes admitted on KTIR, by name (see the module docstring)."""


def _upstream(name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        from xdsl.transforms import get_all_passes as xdsl_passes

        return xdsl_passes()[name]()

    return load


def _ours(target: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        module, _, cls = target.partition(":")
        return getattr(importlib.import_module(module), cls)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes, then the allowed upstream ones (ours win on a name clash): name -> loader of the class."""
    passes = {name: _ours(target) for name, target in SPYRE_PASSES.items()}
    for name in UPSTREAM_PASSES:
        passes.setdefault(name, _upstream(name))
    return passes


def summary(name: str) -> str:
    """One line about the pass `name`: the summary in `UPSTREAM_PASSES` if
    any, else the first sentence of its class docstring."""
    if UPSTREAM_PASSES.get(name) and name not in SPYRE_PASSES:
        return UPSTREAM_PASSES[name]
    cls = get_all_passes()[name]()
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")  # not inherited from ModulePass
    if doc.startswith(cls.__name__ + "("):  # the signature a dataclass puts there
        doc = ""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    sentence = re.split(r"(?<=[.:])\s", paragraph, maxsplit=1)[0]
    return sentence


@dataclasses.dataclass(frozen=True)
class PassOption:
    """One option of a pass, as `spyre-opt -p 'NAME{option=value}'` spells it."""

    name: str
    """Dashed, as written in a pass list: `out-dir`."""
    field: str
    """The dataclass field of the pass: `out_dir`."""
    hint: typing.Any
    """The field's type (resolved)."""
    default: typing.Any
    """The default value; `REQUIRED` when the option must be given."""
    owner: type | None = None
    """The pass class (its field docstrings give `help`, read only when asked)."""

    @property
    def help(self) -> str:
        """First sentence of the field's `help` metadata or docstring, if any."""
        if self.owner is None:
            return ""
        meta = next((f.metadata for f in dataclasses.fields(self.owner) if f.name == self.field), {})
        return str(meta.get("help", "")) or _field_docs(self.owner).get(self.field, "")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def type_name(self) -> str:
        return type_name(self.hint)

    def default_text(self) -> str:
        return "required" if self.required else format_value(self.default, empty="(empty)")


REQUIRED: typing.Any = object()
"""The default of an option without one."""


def pass_options(name_or_cls: str | type[ModulePass]) -> list[PassOption]:
    """The options of a pass (by registry name or class), in declaration order."""
    cls = get_all_passes()[name_or_cls]() if isinstance(name_or_cls, str) else name_or_cls
    if not dataclasses.is_dataclass(cls):
        return []
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.name == "name" or not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        elif _optional(hints[f.name]):
            default = None
        else:
            default = REQUIRED
        out.append(PassOption(f.name.replace("_", "-"), f.name, hints[f.name], default, cls))
    return out


def type_name(hint: typing.Any) -> str:
    """How `--list-passes` names an option's type: `int`, `bool`, `string`,
    `int,...` (a comma-separated list), `fast|none` (one of)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in args if a is not type(None))
    if origin in (tuple, list):
        return type_name(args[0]) + ",..." if args else "string,..."
    if origin is typing.Literal:
        return "|".join(str(a) for a in args)
    return {str: "string", int: "int", bool: "bool", float: "float"}.get(hint, getattr(hint, "__name__", str(hint)))


_PLAIN_VALUE = re.compile(r"[\w./:+@%~^-]+")


def format_value(value: typing.Any, *, empty: str = '""') -> str:
    """`value` as written in an option list (quoted when it needs to be)."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        if not value:
            return empty
        return ",".join(format_value(v) for v in value)
    text = str(value)
    if isinstance(value, str) and not _PLAIN_VALUE.fullmatch(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def _optional(hint: typing.Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


@functools.cache
def _field_docs(cls: type) -> dict[str, str]:
    """(Read from the source once per class.) The first sentence of each field's docstring (the string literal after
    the field, as Sphinx reads it), from `cls` and the dataclasses it extends."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for stmt, nxt in zip(body, body[1:], strict=False):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                paragraph = " ".join(inspect.cleandoc(nxt.value.value).split("\n\n", 1)[0].split())
                docs[stmt.target.id] = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]
    return docs
