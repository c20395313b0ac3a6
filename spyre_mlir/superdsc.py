"""SuperDSC: the JSON op description torch-spyre's compiler writes (`sdsc_N.json`), as plain data.

One file holds one object with one key, `"<index>_<op>"` (e.g. `"0_add"`); its value, the SuperDSC,
says how many cores run the op, which work slice each core takes, and (in its one `Dsc`) the op's
iteration space, where each tensor lives (HBM or a core's LX) and how its elements are laid out
there, and the compute op. docs/superdsc.md describes every field and the evidence for its meaning.

    sdsc = read_superdsc("add/sdsc_0.json")         # SuperDscError (file + JSON path) on bad input
    dsc = sdsc.dscs[0]
    alloc = dsc.schedule[0]                          # an Allocation: Tensor0 in HBM
    layout = allocation_layout(dsc, alloc)           # extents, strides, byte offsets
    layout.device_shape                              # [16, 512, 64]: sticks of out, mb, stick lanes
    layout.offset({"mb": 256, "out": 0})             # 32768: core 1's start, bytes from the base
    assert sdsc.to_json() == json.load(open("add/sdsc_0.json"))

The reader is strict: a field the known examples do not have is an error naming it (except inside
the free-form `debug_handle_`), and features every example leaves trivial (time folds, several data
stages, masking, constants, corelets) are refused rather than guessed at.

Helpers shared by the executor (interpreter/superdsc_exec.py) and by emitters: `allocation_layout`
(the extents and byte offsets of an allocation, the whole tensor or one core's piece),
`core_origin`, `host_shape` / `default_device_shape` (torch-spyre's default device layout),
`to_default_layout` / `from_default_layout`, and the data formats (`data_format`, `encode`, `decode`).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from spyre_mlir.target import SPYRE


class SuperDscError(ValueError):
    """A SuperDSC that cannot be read or run: `str()` is `FILE: at /json/path: message`."""

    def __init__(self, source: str, path: str, message: str):
        self.source = source
        self.path = path
        self.message = message
        super().__init__(f"{source}: at {path or '/'}: {message}")


# -- data formats --------------------------------------------------------------


@dataclass(frozen=True)
class DataFormat:
    """An element format: its SuperDSC name, bytes per element and how NumPy stores it.

    SEN169_FP16 is Spyre's DLFloat16 on hardware; we store IEEE float16 (docs/superdsc.md).
    bf16 is stored as uint16 bit patterns (the top half of a float32)."""

    name: str
    word_length: int
    storage: np.dtype

    @property
    def is_bf16(self) -> bool:
        return "BF16" in self.name.upper() or "BFLOAT16" in self.name.upper()


KNOWN_FORMATS = {"SEN169_FP16": (2, np.float16), "IEEE_FP32": (4, np.float32)}
"""The formats of the examples; a name containing BF16 or BFLOAT16 is bf16 (2 bytes)."""


def data_format(name: str) -> DataFormat:
    """The `DataFormat` called `name`; `ValueError` for a name we do not know.

    >>> data_format("IEEE_FP32").word_length
    4
    """
    if name in KNOWN_FORMATS:
        length, dtype = KNOWN_FORMATS[name]
        return DataFormat(name, length, np.dtype(dtype))
    if "BF16" in name.upper() or "BFLOAT16" in name.upper():
        return DataFormat(name, 2, np.dtype(np.uint16))
    raise ValueError(f"unknown data format '{name}' (known: {', '.join(KNOWN_FORMATS)}, or a name containing BF16)")


BF16_NAME = "BF16"
"""The name `format_of_dtype` gives bf16: the compiler's own name for it is not in any example."""


def format_of_dtype(dtype: Any) -> DataFormat:
    """The `DataFormat` of a NumPy dtype: float16 -> SEN169_FP16, float32 -> IEEE_FP32, bfloat16
    (ml_dtypes) -> bf16 (named `BF16_NAME`); `ValueError` for any other.

    >>> format_of_dtype(np.float16).name
    'SEN169_FP16'
    """
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16":
        return data_format(BF16_NAME)
    for name, (_, storage) in KNOWN_FORMATS.items():
        if dtype == np.dtype(storage):
            return data_format(name)
    raise ValueError(f"no SuperDSC data format for {dtype.name} (known: float16, float32, bfloat16)")


def encode(values: np.ndarray, fmt: DataFormat) -> np.ndarray:
    """`values` (any float array) in `fmt`'s storage dtype; bf16 rounds to nearest even from float32."""
    if not fmt.is_bf16:
        return np.asarray(values, dtype=fmt.storage)
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    if nan.any():
        rounded[nan] = np.uint16(0x7FC0)
    return rounded


def decode(stored: np.ndarray, fmt: DataFormat) -> np.ndarray:
    """Elements in `fmt`'s storage dtype as float32."""
    if not fmt.is_bf16:
        return np.asarray(stored).astype(np.float32)
    return (np.asarray(stored).astype(np.uint32) << np.uint32(16)).view(np.float32)


# -- the data ------------------------------------------------------------------


@dataclass
class FoldProp:
    """A `{factor_, label_}` pair: a loop of `factor` steps called `label` (core, corelet, time)."""

    label: str
    factor: int


@dataclass
class Fold:
    """One fold of a dim: an index i in [0, factor) that moves the dim's coordinate by alpha * i (+ beta).

    A tensor's coordinate along a dim is the sum over its folds; alpha 0 is replication."""

    label: str
    factor: int
    alpha: int
    beta: int = 0


@dataclass
class DimCoordinates:
    """How one dim of an allocation is enumerated: its folds, outermost first
    (core_fold, corelet_fold, row_fold, [elem_arr_1], elem_arr_0)."""

    folds: list[Fold]
    elem_arr: int = 1
    spatial: int = 3
    temporal: int = 0
    padding: str = "nopad"

    def fold(self, label: str) -> Fold | None:
        return next((f for f in self.folds if f.label == label), None)


@dataclass
class Allocation:
    """A schedule node `allocate`: one labeled ds placed in one memory component.

    `start_address` maps each core to its start: a negative symbol id when `start_addr_symbolic`
    (bound at run time), else a byte address (LX: an offset in the core's LX)."""

    name: str
    lds_idx: int
    component: str
    layout_dim_order: list[str]
    start_address: dict[int, int]
    coordinates: dict[str, DimCoordinates]
    start_addr_symbolic: bool | None = None
    """True/False: `isStartAddrSymbolic_` is 1/0; None: the field is absent (LX nodes)."""
    prev: str = ""
    max_dim_sizes: list[int] | None = None
    """Defaults to -1 per layout dim."""
    indirect_alloc_type: str = "no_indirection"
    node_type: str = "allocate"


@dataclass
class LabeledDs:
    """A data structure the op uses: a tensor, its element format and the memories holding it."""

    lds_idx: int
    ds_name: str
    ds_type: str
    scale: list[int]
    data_format: str
    word_length: int
    mem_org: dict[str, int] = field(default_factory=lambda: {"hbm": 1, "lx": 1})
    """Component -> `isPresent`."""

    @property
    def label(self) -> str:
        """The name compute ops use: `Tensor0-idx0`."""
        return f"{self.ds_name}-idx{self.lds_idx}"


@dataclass
class DsInfo:
    """`primaryDsInfo_[type]`: the stick layout of a ds type."""

    layout_dim_order: list[str]
    stick_dim_order: list[str]
    stick_size: list[int]


@dataclass
class ComputeOp:
    """One `computeOp_` entry: `op_func_name` on the `inputs`, writing the `outputs` (labels)."""

    ex_unit: str
    op_func_name: str
    inputs: list[str]
    outputs: list[str]
    data_format: str
    fidelity: str = "regular"
    location: str = "Inner"


@dataclass
class Dsc:
    """One DSC (`dscs_[k]`): the op on its iteration space `sizes` (N_, dims in order)."""

    op_name: str
    sizes: dict[str, int]
    work_slice: dict[str, int]
    """The data stage's per-core slice size per dim (`dataStageParam_["0"].ss_`, == `el_`)."""
    primary_ds_info: dict[str, DsInfo]
    schedule: list[Allocation]
    labeled_ds: list[LabeledDs]
    compute_ops: list[ComputeOp]
    core_ids_used: list[int]
    num_corelets_used: int = 1
    iteration_name: str = "n"
    data_stage_name: str = "core"

    def lds(self, idx: int) -> LabeledDs:
        """The labeled ds with `ldsIdx_` idx (KeyError if none)."""
        for lds in self.labeled_ds:
            if lds.lds_idx == idx:
                return lds
        raise KeyError(idx)

    def lds_by_label(self, label: str) -> LabeledDs:
        for lds in self.labeled_ds:
            if lds.label == label:
                return lds
        raise KeyError(label)


@dataclass
class SuperDsc:
    """One `sdsc_N.json`: `name` is its one key (`0_add`)."""

    name: str
    num_cores_used: int
    num_wk_slices: dict[str, int]
    core_to_wk_slice: dict[int, dict[str, int]]
    dscs: list[Dsc]
    core_to_dsc: dict[int, int] | None = None
    """Defaults to dsc 0 for every core."""
    debug_handle: Any = field(default_factory=dict)
    core_fold: FoldProp | None = None
    """Defaults to ("core", num_cores_used)."""
    corelet_fold: FoldProp = field(default_factory=lambda: FoldProp("corelet", 1))
    source: str = "<superdsc>"
    """Where it was read from, for messages; not written."""

    def to_json(self) -> dict:
        """The file's JSON object, keys in the compiler's order (`json.dumps(x, indent=1)` reproduces it)."""
        cores = range(self.num_cores_used)
        core_fold = self.core_fold or FoldProp("core", self.num_cores_used)
        core_to_dsc = self.core_to_dsc if self.core_to_dsc is not None else {c: 0 for c in cores}
        body = {
            "debug_handle_": copy.deepcopy(self.debug_handle),
            "sdscFoldProps_": copy.deepcopy(_TRIVIAL_TIME_PROPS),
            "sdscFolds_": copy.deepcopy(_TRIVIAL_TIME_FOLDS),
            "coreFoldProp_": _prop_json(core_fold),
            "coreletFoldProp_": _prop_json(self.corelet_fold),
            "numCoresUsed_": self.num_cores_used,
            "coreIdToDsc_": {str(c): d for c, d in core_to_dsc.items()},
            "numWkSlicesPerDim_": dict(self.num_wk_slices),
            "coreIdToWkSlice_": {str(c): dict(s) for c, s in self.core_to_wk_slice.items()},
            "coreIdToDscSchedule": {str(c): copy.deepcopy(_TRIVIAL_DSC_SCHEDULE) for c in core_to_dsc},
            "dscs_": [{d.op_name: _dsc_json(d, self)} for d in self.dscs],
        }
        return {self.name: body}


_TRIVIAL_TIME_PROPS = [{"factor_": 1, "label_": "time"}]
_TRIVIAL_TIME_FOLDS = {
    "dim_prop_func": [{"Affine": {"alpha_": 1, "beta_": 0}}],
    "dim_prop_attr": [{"factor_": 1, "label_": "time"}],
    "data_": {"[0]": "0"},
}
_TRIVIAL_DSC_SCHEDULE = [[-1, 0, 0, 0]]
_EMPTY_STAGE_FIELDS = (
    "symbolicDimInfo_",
    "maxSymbolicVolume_",
    "coreletSplit_",
    "rowSplit_",
    "peSfpSplit_",
    "paddingSizes_",
)
COMPONENTS = ("hbm", "lx")
NODE_TYPES = ("allocate",)
FOLD_LABELS = ("core_fold", "corelet_fold", "row_fold", "elem_arr_1", "elem_arr_0")


def _prop_json(prop: FoldProp) -> dict:
    return {"factor_": prop.factor, "label_": prop.label}


def _folds_json(folds: Sequence[Fold]) -> dict:
    return {
        "dim_prop_func": [{"Affine": {"alpha_": f.alpha, "beta_": f.beta}} for f in folds],
        "dim_prop_attr": [{"factor_": f.factor, "label_": f.label} for f in folds],
    }


def _stage_json(name: str, sizes: Mapping[str, int]) -> dict:
    out: dict[str, Any] = {"name_": name, **sizes}
    out.update({k: {} for k in _EMPTY_STAGE_FIELDS})
    return out


def _allocation_json(a: Allocation, num_cores: int) -> dict:
    out: dict[str, Any] = {
        "nodeType_": a.node_type,
        "name_": a.name,
        "prev_": a.prev,
        "ldsIdx_": a.lds_idx,
        "component_": a.component,
    }
    if a.start_addr_symbolic is not None:
        out["isStartAddrSymbolic_"] = int(a.start_addr_symbolic)
    out["layoutDimOrder_"] = list(a.layout_dim_order)
    out["maxDimSizes_"] = list(a.max_dim_sizes) if a.max_dim_sizes is not None else [-1] * len(a.layout_dim_order)
    out["indirectAllocType_"] = a.indirect_alloc_type
    out["startAddressCoreCorelet_"] = {
        "dim_prop_func": [{"Map": {}}, {"Const": {}}, {"Const": {}}],
        "dim_prop_attr": [
            {"factor_": num_cores, "label_": "core"},
            {"factor_": 1, "label_": "corelet"},
            {"factor_": 1, "label_": "time"},
        ],
        "data_": {f"[{c}, 0, 0]": str(v) for c, v in a.start_address.items()},
    }
    out["coordinates_"] = {
        "coordInfo": {
            dim: {
                "spatial": c.spatial,
                "temporal": c.temporal,
                "elemArr": c.elem_arr,
                "padding": c.padding,
                "folds": _folds_json(c.folds),
            }
            for dim, c in a.coordinates.items()
        },
        "coreIdToWkSlice_": {},
    }
    return out


def _dsc_json(d: Dsc, sdsc: SuperDsc) -> dict:
    return {
        "numCoresUsed_": len(d.core_ids_used),
        "numCoreletsUsed_": d.num_corelets_used,
        "coreIdsUsed_": list(d.core_ids_used),
        "N_": {"name_": d.iteration_name, **{f"{k}_": v for k, v in d.sizes.items()}},
        "coordinateMasking_": {},
        "maskingConstId_": -1,
        "dataStageParam_": {
            "0": {
                "ss_": _stage_json(d.data_stage_name, {f"{k}_": v for k, v in d.work_slice.items()}),
                "el_": _stage_json(d.data_stage_name, {f"{k}_": v for k, v in d.work_slice.items()}),
            }
        },
        "primaryDsInfo_": {
            t: {
                "layoutDimOrder_": list(i.layout_dim_order),
                "stickDimOrder_": list(i.stick_dim_order),
                "stickSize_": list(i.stick_size),
            }
            for t, i in d.primary_ds_info.items()
        },
        "scheduleTree_": [_allocation_json(a, sdsc.num_cores_used) for a in d.schedule],
        "labeledDs_": [
            {
                "ldsIdx_": lds.lds_idx,
                "dsName_": lds.ds_name,
                "dsType_": lds.ds_type,
                "scale_": list(lds.scale),
                "wordLength": lds.word_length,
                "dataFormat_": lds.data_format,
                "memOrg_": {c: {"isPresent": p} for c, p in lds.mem_org.items()},
            }
            for lds in d.labeled_ds
        ],
        "constantInfo_": "{}",
        "computeOp_": [
            {
                "exUnit": op.ex_unit,
                "opFuncName": op.op_func_name,
                "attributes_": {"dataFormat_": op.data_format, "fidelity_": op.fidelity},
                "location": op.location,
                "inputLabeledDs": list(op.inputs),
                "outputLabeledDs": list(op.outputs),
            }
            for op in d.compute_ops
        ],
    }


# -- reading -------------------------------------------------------------------


def read_superdsc(path: str | Path) -> SuperDsc:
    """Read and validate one `sdsc_N.json` (SuperDscError naming the file on any problem)."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise SuperDscError(str(path), "", f"cannot read the file: {e}") from None
    except json.JSONDecodeError as e:
        raise SuperDscError(str(path), "", f"not JSON: {e}") from None
    return parse_superdsc(obj, str(path))


def parse_superdsc(obj: Any, source: str) -> SuperDsc:
    """Validate a SuperDSC's JSON object (as `json.load` gives it) and build the model."""
    return _Reader(source).superdsc(obj)


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if value is None:
        return "null"
    return type(value).__name__


class _Reader:
    """Validates JSON against the SuperDSC structure; every error names the JSON path."""

    def __init__(self, source: str):
        self.source = source

    def error(self, path: str, message: str) -> SuperDscError:
        return SuperDscError(self.source, path, message)

    def unsupported(self, path: str, value: Any, examples: Any) -> SuperDscError:
        return self.error(
            path, f"{json.dumps(value)} is not supported (every known example has {json.dumps(examples)})"
        )

    # primitives

    def obj(self, value: Any, path: str, required: Sequence[str], optional: Sequence[str] = ()) -> dict:
        if not isinstance(value, dict):
            raise self.error(path, f"expected an object, found {_describe(value)}")
        for key in required:
            if key not in value:
                raise self.error(f"{path}/{key}", f"missing field '{key}'")
        known = set(required) | set(optional)
        for key in value:
            if key not in known:
                raise self.error(
                    f"{path}/{key}", f"unknown field '{key}' (known: {', '.join(list(required) + list(optional))})"
                )
        return value

    def int_field(self, value: Any, path: str, minimum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(path, f"expected an integer, found {_describe(value)}")
        if minimum is not None and value < minimum:
            raise self.error(path, f"must be at least {minimum}, found {value}")
        return value

    def str_field(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected a string, found {_describe(value)}")
        return value

    def list_field(self, value: Any, path: str) -> list:
        if not isinstance(value, list):
            raise self.error(path, f"expected a list, found {_describe(value)}")
        return value

    def dict_field(self, value: Any, path: str) -> dict:
        if not isinstance(value, dict):
            raise self.error(path, f"expected an object, found {_describe(value)}")
        return value

    def str_list(self, value: Any, path: str) -> list[str]:
        return [self.str_field(v, f"{path}/{i}") for i, v in enumerate(self.list_field(value, path))]

    def int_list(self, value: Any, path: str) -> list[int]:
        return [self.int_field(v, f"{path}/{i}") for i, v in enumerate(self.list_field(value, path))]

    def core_key(self, key: str, path: str) -> int:
        if not key.isdigit():
            raise self.error(f"{path}/{key}", f"a core id must be a decimal integer, found '{key}'")
        return int(key)

    def trivial(self, value: Any, path: str, expected: Any) -> None:
        if value != expected:
            raise self.unsupported(path, value, expected)

    def prop(self, value: Any, path: str, label: str) -> FoldProp:
        v = self.obj(value, path, ("factor_", "label_"))
        got = self.str_field(v["label_"], f"{path}/label_")
        if got != label:
            raise self.error(f"{path}/label_", f"expected label '{label}', found '{got}'")
        return FoldProp(got, self.int_field(v["factor_"], f"{path}/factor_", 1))

    # the file

    def superdsc(self, obj: Any) -> SuperDsc:
        if not isinstance(obj, dict):
            raise self.error("", f"a SuperDSC file holds one JSON object, found {_describe(obj)}")
        if len(obj) != 1:
            raise self.error("", f"a SuperDSC object has one key '<index>_<op>', found {len(obj)}: {list(obj)}")
        ((name, body),) = obj.items()
        p = f"/{name}"
        index, _, op = name.partition("_")
        if not index.isdigit() or not op:
            raise self.error(p, f"the key must be '<index>_<op>' (like '0_add'), found '{name}'")
        v = self.obj(
            body,
            p,
            (
                "debug_handle_",
                "sdscFoldProps_",
                "sdscFolds_",
                "coreFoldProp_",
                "coreletFoldProp_",
                "numCoresUsed_",
                "coreIdToDsc_",
                "numWkSlicesPerDim_",
                "coreIdToWkSlice_",
                "coreIdToDscSchedule",
                "dscs_",
            ),
        )
        self.trivial(v["sdscFoldProps_"], f"{p}/sdscFoldProps_", _TRIVIAL_TIME_PROPS)
        self.trivial(v["sdscFolds_"], f"{p}/sdscFolds_", _TRIVIAL_TIME_FOLDS)
        cores = self.int_field(v["numCoresUsed_"], f"{p}/numCoresUsed_", 1)
        core_fold = self.prop(v["coreFoldProp_"], f"{p}/coreFoldProp_", "core")
        if core_fold.factor != cores:
            raise self.error(
                f"{p}/coreFoldProp_/factor_", f"the core fold has {core_fold.factor} steps but numCoresUsed_ is {cores}"
            )
        corelet_fold = self.prop(v["coreletFoldProp_"], f"{p}/coreletFoldProp_", "corelet")
        if corelet_fold.factor != 1:
            raise self.unsupported(f"{p}/coreletFoldProp_/factor_", corelet_fold.factor, 1)

        slices_path = f"{p}/numWkSlicesPerDim_"
        slices = {
            k: self.int_field(n, f"{slices_path}/{k}", 1)
            for k, n in self.dict_field(v["numWkSlicesPerDim_"], slices_path).items()
        }
        core_to_dsc = self.core_map(v["coreIdToDsc_"], f"{p}/coreIdToDsc_", cores)
        dsc_path = f"{p}/coreIdToDsc_"
        core_to_dsc = {c: self.int_field(d, f"{dsc_path}/{c}", 0) for c, d in core_to_dsc.items()}
        sched_path = f"{p}/coreIdToDscSchedule"
        for c, s in self.core_map(v["coreIdToDscSchedule"], sched_path, cores).items():
            self.trivial(s, f"{sched_path}/{c}", _TRIVIAL_DSC_SCHEDULE)

        wk_path = f"{p}/coreIdToWkSlice_"
        core_to_wk = {}
        for c, s in self.core_map(v["coreIdToWkSlice_"], wk_path, cores).items():
            s = self.obj(s, f"{wk_path}/{c}", tuple(slices))
            core_to_wk[c] = {}
            for dim, n in slices.items():
                i = self.int_field(s[dim], f"{wk_path}/{c}/{dim}")
                if not 0 <= i < n:
                    raise self.error(f"{wk_path}/{c}/{dim}", f"slice {i} is out of range: {dim} has {n} work slices")
                core_to_wk[c][dim] = i

        sdsc = SuperDsc(
            name=name,
            num_cores_used=cores,
            num_wk_slices=slices,
            core_to_wk_slice=core_to_wk,
            dscs=[],
            core_to_dsc=core_to_dsc,
            debug_handle=copy.deepcopy(v["debug_handle_"]),
            core_fold=core_fold,
            corelet_fold=corelet_fold,
            source=self.source,
        )
        dscs = self.list_field(v["dscs_"], f"{p}/dscs_")
        if not dscs:
            raise self.error(f"{p}/dscs_", "no DSC")
        for i, entry in enumerate(dscs):
            ep = f"{p}/dscs_/{i}"
            entry = self.dict_field(entry, ep)
            if len(entry) != 1:
                raise self.error(ep, f"a dscs_ entry has one key (the op name), found {len(entry)}")
            ((op_name, dsc),) = entry.items()
            sdsc.dscs.append(self.dsc(op_name, dsc, f"{ep}/{op_name}", sdsc))
        for c, d in core_to_dsc.items():
            if d >= len(sdsc.dscs):
                raise self.error(f"{dsc_path}/{c}", f"core {c} runs DSC {d} but there are {len(sdsc.dscs)}")
            if c not in sdsc.dscs[d].core_ids_used:
                raise self.error(f"{dsc_path}/{c}", f"core {c} runs DSC {d}, whose coreIdsUsed_ lacks it")
        return sdsc

    def core_map(self, value: Any, path: str, cores: int) -> dict[int, Any]:
        """An object keyed by every core id 0..cores-1."""
        d = self.dict_field(value, path)
        out = {self.core_key(k, path): x for k, x in d.items()}
        missing = [c for c in range(cores) if c not in out]
        extra = [c for c in out if c >= cores]
        if missing:
            raise self.error(path, f"cores {missing} have no entry ({cores} cores are used)")
        if extra:
            raise self.error(f"{path}/{extra[0]}", f"core {extra[0]} is out of range ({cores} cores are used)")
        return out

    def dsc(self, op_name: str, value: Any, p: str, sdsc: SuperDsc) -> Dsc:
        v = self.obj(
            value,
            p,
            (
                "numCoresUsed_",
                "numCoreletsUsed_",
                "coreIdsUsed_",
                "N_",
                "coordinateMasking_",
                "maskingConstId_",
                "dataStageParam_",
                "primaryDsInfo_",
                "scheduleTree_",
                "labeledDs_",
                "constantInfo_",
                "computeOp_",
            ),
        )
        self.trivial(v["coordinateMasking_"], f"{p}/coordinateMasking_", {})
        self.trivial(v["maskingConstId_"], f"{p}/maskingConstId_", -1)
        self.trivial(v["constantInfo_"], f"{p}/constantInfo_", "{}")
        corelets = self.int_field(v["numCoreletsUsed_"], f"{p}/numCoreletsUsed_")
        if corelets != 1:
            raise self.unsupported(f"{p}/numCoreletsUsed_", corelets, 1)
        core_ids = self.int_list(v["coreIdsUsed_"], f"{p}/coreIdsUsed_")
        for i, c in enumerate(core_ids):
            if not 0 <= c < sdsc.num_cores_used:
                raise self.error(f"{p}/coreIdsUsed_/{i}", f"core {c} is out of range ({sdsc.num_cores_used} cores)")
        n_used = self.int_field(v["numCoresUsed_"], f"{p}/numCoresUsed_")
        if n_used != len(core_ids):
            raise self.error(f"{p}/numCoresUsed_", f"{n_used} cores but coreIdsUsed_ lists {len(core_ids)}")

        n = self.dict_field(v["N_"], f"{p}/N_")
        if "name_" not in n:
            raise self.error(f"{p}/N_/name_", "missing field 'name_'")
        sizes = {}
        for key, size in n.items():
            if key == "name_":
                continue
            if not key.endswith("_") or len(key) < 2:
                raise self.error(f"{p}/N_/{key}", f"a dim's key ends in '_' (like 'mb_'), found '{key}'")
            sizes[key[:-1]] = self.int_field(size, f"{p}/N_/{key}", 1)
        for dim in sdsc.num_wk_slices:
            if dim not in sizes:
                raise self.error(f"{p}/N_", f"numWkSlicesPerDim_ names dim '{dim}', which N_ lacks")
        for dim in sizes:
            if dim not in sdsc.num_wk_slices:
                raise self.error(f"{p}/N_/{dim}_", f"dim '{dim}' has no entry in numWkSlicesPerDim_")

        stage_path = f"{p}/dataStageParam_"
        stages = self.dict_field(v["dataStageParam_"], stage_path)
        if list(stages) != ["0"]:
            raise self.unsupported(stage_path, list(stages), ["0"])
        stage = self.obj(stages["0"], f"{stage_path}/0", ("ss_", "el_"))
        ss_name, work_slice = self.stage(stage["ss_"], f"{stage_path}/0/ss_", sizes)
        self.trivial(stage["el_"], f"{stage_path}/0/el_", stage["ss_"])
        for dim, size in sizes.items():
            if work_slice[dim] * sdsc.num_wk_slices[dim] != size:
                raise self.error(
                    f"{stage_path}/0/ss_/{dim}_",
                    f"the work slice {work_slice[dim]} times {sdsc.num_wk_slices[dim]} slices is not N_ {size}",
                )

        info_path = f"{p}/primaryDsInfo_"
        infos = {}
        for t, info in self.dict_field(v["primaryDsInfo_"], info_path).items():
            ip = f"{info_path}/{t}"
            i = self.obj(info, ip, ("layoutDimOrder_", "stickDimOrder_", "stickSize_"))
            infos[t] = DsInfo(
                self.str_list(i["layoutDimOrder_"], f"{ip}/layoutDimOrder_"),
                self.str_list(i["stickDimOrder_"], f"{ip}/stickDimOrder_"),
                self.int_list(i["stickSize_"], f"{ip}/stickSize_"),
            )
            if len(infos[t].stick_dim_order) != 1 or len(infos[t].stick_size) != 1:
                raise self.error(ip, "one stick dim and one stick size expected")
            for j, dim in enumerate(infos[t].layout_dim_order):
                if dim not in sizes:
                    raise self.error(f"{ip}/layoutDimOrder_/{j}", f"dim '{dim}' is not in N_")

        lds_path = f"{p}/labeledDs_"
        labeled = [
            self.labeled_ds(x, f"{lds_path}/{i}") for i, x in enumerate(self.list_field(v["labeledDs_"], lds_path))
        ]
        seen: dict[int, int] = {}
        for i, lds in enumerate(labeled):
            if lds.lds_idx in seen:
                raise self.error(f"{lds_path}/{i}/ldsIdx_", f"ldsIdx_ {lds.lds_idx} is used twice")
            seen[lds.lds_idx] = i
            if lds.ds_type not in infos:
                raise self.error(
                    f"{lds_path}/{i}/dsType_",
                    f"no primaryDsInfo_ for ds type '{lds.ds_type}' (have: {', '.join(infos)})",
                )

        dsc = Dsc(
            op_name=op_name,
            sizes=sizes,
            work_slice=work_slice,
            primary_ds_info=infos,
            schedule=[],
            labeled_ds=labeled,
            compute_ops=[],
            core_ids_used=core_ids,
            num_corelets_used=corelets,
            iteration_name=self.str_field(n["name_"], f"{p}/N_/name_"),
            data_stage_name=ss_name,
        )
        tree_path = f"{p}/scheduleTree_"
        for i, node in enumerate(self.list_field(v["scheduleTree_"], tree_path)):
            dsc.schedule.append(self.allocation(node, f"{tree_path}/{i}", dsc, sdsc))

        ops_path = f"{p}/computeOp_"
        labels = [lds.label for lds in labeled]
        for i, op in enumerate(self.list_field(v["computeOp_"], ops_path)):
            dsc.compute_ops.append(self.compute_op(op, f"{ops_path}/{i}", labels))
        return dsc

    def stage(self, value: Any, p: str, sizes: Mapping[str, int]) -> tuple[str, dict[str, int]]:
        v = self.obj(value, p, ("name_", *(f"{d}_" for d in sizes), *_EMPTY_STAGE_FIELDS))
        for key in _EMPTY_STAGE_FIELDS:
            self.trivial(v[key], f"{p}/{key}", {})
        work = {}
        for dim, size in sizes.items():
            work[dim] = self.int_field(v[f"{dim}_"], f"{p}/{dim}_", 1)
            if work[dim] > size:
                raise self.error(f"{p}/{dim}_", f"the work slice {work[dim]} exceeds N_ {size}")
        return self.str_field(v["name_"], f"{p}/name_"), work

    def labeled_ds(self, value: Any, p: str) -> LabeledDs:
        v = self.obj(value, p, ("ldsIdx_", "dsName_", "dsType_", "scale_", "wordLength", "dataFormat_", "memOrg_"))
        fmt_name = self.str_field(v["dataFormat_"], f"{p}/dataFormat_")
        try:
            fmt = data_format(fmt_name)
        except ValueError as e:
            raise self.error(f"{p}/dataFormat_", str(e)) from None
        word = self.int_field(v["wordLength"], f"{p}/wordLength")
        if word != fmt.word_length:
            raise self.error(
                f"{p}/wordLength", f"wordLength {word} does not match dataFormat_ {fmt_name} ({fmt.word_length} bytes)"
            )
        mem_path = f"{p}/memOrg_"
        mem = {}
        for comp, x in self.dict_field(v["memOrg_"], mem_path).items():
            if comp not in COMPONENTS:
                raise self.error(f"{mem_path}/{comp}", f"unknown component '{comp}' (known: {', '.join(COMPONENTS)})")
            x = self.obj(x, f"{mem_path}/{comp}", ("isPresent",))
            mem[comp] = self.int_field(x["isPresent"], f"{mem_path}/{comp}/isPresent")
        return LabeledDs(
            lds_idx=self.int_field(v["ldsIdx_"], f"{p}/ldsIdx_", 0),
            ds_name=self.str_field(v["dsName_"], f"{p}/dsName_"),
            ds_type=self.str_field(v["dsType_"], f"{p}/dsType_"),
            scale=self.int_list(v["scale_"], f"{p}/scale_"),
            data_format=fmt_name,
            word_length=word,
            mem_org=mem,
        )

    def compute_op(self, value: Any, p: str, labels: Sequence[str]) -> ComputeOp:
        v = self.obj(value, p, ("exUnit", "opFuncName", "attributes_", "location", "inputLabeledDs", "outputLabeledDs"))
        attrs = self.obj(v["attributes_"], f"{p}/attributes_", ("dataFormat_", "fidelity_"))
        fmt = self.str_field(attrs["dataFormat_"], f"{p}/attributes_/dataFormat_")
        try:
            data_format(fmt)
        except ValueError as e:
            raise self.error(f"{p}/attributes_/dataFormat_", str(e)) from None
        lists = {}
        for key in ("inputLabeledDs", "outputLabeledDs"):
            lists[key] = self.str_list(v[key], f"{p}/{key}")
            for i, label in enumerate(lists[key]):
                if label not in labels:
                    raise self.error(
                        f"{p}/{key}/{i}",
                        f"'{label}' is not '<dsName>-idx<ldsIdx>' of a labeled ds (have: {', '.join(labels)})",
                    )
        return ComputeOp(
            ex_unit=self.str_field(v["exUnit"], f"{p}/exUnit"),
            op_func_name=self.str_field(v["opFuncName"], f"{p}/opFuncName"),
            inputs=lists["inputLabeledDs"],
            outputs=lists["outputLabeledDs"],
            data_format=fmt,
            fidelity=self.str_field(attrs["fidelity_"], f"{p}/attributes_/fidelity_"),
            location=self.str_field(v["location"], f"{p}/location"),
        )

    def allocation(self, value: Any, p: str, dsc: Dsc, sdsc: SuperDsc) -> Allocation:
        node = self.dict_field(value, p)
        if "nodeType_" not in node:
            raise self.error(f"{p}/nodeType_", "missing field 'nodeType_'")
        kind = self.str_field(node["nodeType_"], f"{p}/nodeType_")
        if kind not in NODE_TYPES:
            raise self.error(f"{p}/nodeType_", f"unknown node type '{kind}' (known: {', '.join(NODE_TYPES)})")
        v = self.obj(
            node,
            p,
            (
                "nodeType_",
                "name_",
                "prev_",
                "ldsIdx_",
                "component_",
                "layoutDimOrder_",
                "maxDimSizes_",
                "indirectAllocType_",
                "startAddressCoreCorelet_",
                "coordinates_",
            ),
            ("isStartAddrSymbolic_",),
        )
        component = self.str_field(v["component_"], f"{p}/component_")
        if component not in COMPONENTS:
            raise self.error(f"{p}/component_", f"unknown component '{component}' (known: {', '.join(COMPONENTS)})")
        lds_idx = self.int_field(v["ldsIdx_"], f"{p}/ldsIdx_")
        try:
            lds = dsc.lds(lds_idx)
        except KeyError:
            have = ", ".join(str(x.lds_idx) for x in dsc.labeled_ds)
            raise self.error(f"{p}/ldsIdx_", f"no labeled ds has ldsIdx_ {lds_idx} (have: {have})") from None
        symbolic = None
        if "isStartAddrSymbolic_" in v:
            flag = self.int_field(v["isStartAddrSymbolic_"], f"{p}/isStartAddrSymbolic_")
            if flag not in (0, 1):
                raise self.error(f"{p}/isStartAddrSymbolic_", f"expected 0 or 1, found {flag}")
            symbolic = bool(flag)
        indirect = self.str_field(v["indirectAllocType_"], f"{p}/indirectAllocType_")
        self.trivial(indirect, f"{p}/indirectAllocType_", "no_indirection")
        layout = self.str_list(v["layoutDimOrder_"], f"{p}/layoutDimOrder_")
        for i, dim in enumerate(layout):
            if dim not in dsc.sizes:
                raise self.error(f"{p}/layoutDimOrder_/{i}", f"dim '{dim}' is not in N_ ({', '.join(dsc.sizes)})")
        max_sizes = self.int_list(v["maxDimSizes_"], f"{p}/maxDimSizes_")
        self.trivial(max_sizes, f"{p}/maxDimSizes_", [-1] * len(layout))

        starts = self.start_addresses(v["startAddressCoreCorelet_"], f"{p}/startAddressCoreCorelet_", sdsc)
        if symbolic:
            for c, s in starts.items():
                if s >= 0:
                    raise self.error(
                        f"{p}/startAddressCoreCorelet_/data_/[{c}, 0, 0]",
                        f"a symbolic start address is a negative symbol id, found {s}",
                    )
        elif any(s < 0 for s in starts.values()):
            raise self.error(
                f"{p}/startAddressCoreCorelet_/data_", "a negative start address on a node whose start is not symbolic"
            )
        for c in dsc.core_ids_used:
            if c not in starts:
                raise self.error(f"{p}/startAddressCoreCorelet_/data_", f"core {c} has no start address")

        cp = f"{p}/coordinates_"
        coords_obj = self.obj(v["coordinates_"], cp, ("coordInfo", "coreIdToWkSlice_"))
        self.trivial(coords_obj["coreIdToWkSlice_"], f"{cp}/coreIdToWkSlice_", {})
        info = dsc.primary_ds_info[lds.ds_type]
        stick_dim, stick_size = info.stick_dim_order[0], info.stick_size[0]
        lanes = SPYRE.stick_bytes // lds.word_length
        if stick_size != lanes:
            raise self.error(
                f"{p}/ldsIdx_",
                f"the stick of {lds.ds_type} holds {stick_size} elements but a {SPYRE.stick_bytes}-byte stick "
                f"of {lds.word_length}-byte words holds {lanes}",
            )
        coords = {}
        for dim, ci in self.dict_field(coords_obj["coordInfo"], f"{cp}/coordInfo").items():
            dp = f"{cp}/coordInfo/{dim}"
            if dim not in dsc.sizes:
                raise self.error(dp, f"dim '{dim}' is not in N_ ({', '.join(dsc.sizes)})")
            coords[dim] = self.dim_coordinates(ci, dp, dim, dim == stick_dim, stick_size, sdsc)
        if sorted(coords) != sorted(layout):
            raise self.error(f"{cp}/coordInfo", f"the dims {list(coords)} are not those of layoutDimOrder_ {layout}")
        if stick_dim not in coords:
            raise self.error(f"{cp}/coordInfo", f"the stick dim '{stick_dim}' of {lds.ds_type} has no coordinates")
        return Allocation(
            name=self.str_field(v["name_"], f"{p}/name_"),
            lds_idx=lds_idx,
            component=component,
            layout_dim_order=layout,
            start_address=starts,
            coordinates=coords,
            start_addr_symbolic=symbolic,
            prev=self.str_field(v["prev_"], f"{p}/prev_"),
            max_dim_sizes=max_sizes,
            indirect_alloc_type=indirect,
            node_type=kind,
        )

    def start_addresses(self, value: Any, p: str, sdsc: SuperDsc) -> dict[int, int]:
        v = self.obj(value, p, ("dim_prop_func", "dim_prop_attr", "data_"))
        self.trivial(v["dim_prop_func"], f"{p}/dim_prop_func", [{"Map": {}}, {"Const": {}}, {"Const": {}}])
        expected = [
            {"factor_": sdsc.num_cores_used, "label_": "core"},
            {"factor_": 1, "label_": "corelet"},
            {"factor_": 1, "label_": "time"},
        ]
        self.trivial(v["dim_prop_attr"], f"{p}/dim_prop_attr", expected)
        starts = {}
        for key, s in self.dict_field(v["data_"], f"{p}/data_").items():
            kp = f"{p}/data_/{key}"
            try:
                index = json.loads(key)
            except json.JSONDecodeError:
                index = None
            if not (isinstance(index, list) and len(index) == 3 and all(type(i) is int for i in index)):
                raise self.error(kp, f"the key must be '[core, corelet, time]', found '{key}'")
            core, corelet, time = index
            if corelet != 0 or time != 0:
                raise self.unsupported(kp, index, [core, 0, 0])
            if not 0 <= core < sdsc.num_cores_used:
                raise self.error(kp, f"core {core} is out of range ({sdsc.num_cores_used} cores)")
            text = self.str_field(s, kp)
            try:
                starts[core] = int(text)
            except ValueError:
                raise self.error(kp, f"a start address is a decimal integer string, found '{text}'") from None
        return starts

    def dim_coordinates(
        self, value: Any, p: str, dim: str, is_stick: bool, stick_size: int, sdsc: SuperDsc
    ) -> DimCoordinates:
        v = self.obj(value, p, ("spatial", "temporal", "elemArr", "padding", "folds"))
        temporal = self.int_field(v["temporal"], f"{p}/temporal")
        self.trivial(temporal, f"{p}/temporal", 0)
        padding = self.str_field(v["padding"], f"{p}/padding")
        self.trivial(padding, f"{p}/padding", "nopad")
        fp = f"{p}/folds"
        f = self.obj(v["folds"], fp, ("dim_prop_func", "dim_prop_attr"))
        funcs = self.list_field(f["dim_prop_func"], f"{fp}/dim_prop_func")
        attrs = self.list_field(f["dim_prop_attr"], f"{fp}/dim_prop_attr")
        if len(funcs) != len(attrs):
            raise self.error(fp, f"dim_prop_func has {len(funcs)} entries but dim_prop_attr has {len(attrs)}")
        folds = []
        for i, (fn, at) in enumerate(zip(funcs, attrs)):
            fnp = f"{fp}/dim_prop_func/{i}"
            fn = self.obj(fn, fnp, ("Affine",))
            aff = self.obj(fn["Affine"], f"{fnp}/Affine", ("alpha_", "beta_"))
            atp = f"{fp}/dim_prop_attr/{i}"
            at = self.obj(at, atp, ("factor_", "label_"))
            label = self.str_field(at["label_"], f"{atp}/label_")
            if label not in FOLD_LABELS:
                raise self.error(f"{atp}/label_", f"unknown fold '{label}' (known: {', '.join(FOLD_LABELS)})")
            if any(x.label == label for x in folds):
                raise self.error(f"{atp}/label_", f"fold '{label}' appears twice")
            folds.append(
                Fold(
                    label,
                    self.int_field(at["factor_"], f"{atp}/factor_", 1),
                    self.int_field(aff["alpha_"], f"{fnp}/Affine/alpha_", 0),
                    self.int_field(aff["beta_"], f"{fnp}/Affine/beta_", 0),
                )
            )
        index = {x.label: i for i, x in enumerate(folds)}
        for required in ("core_fold", "elem_arr_0"):
            if required not in index:
                raise self.error(fp, f"dim '{dim}' has no {required}")
        if index["core_fold"] != 0 or index["elem_arr_0"] != len(folds) - 1:
            raise self.error(fp, "the folds must run core_fold first ... elem_arr_0 last")
        core = folds[0]
        slices = sdsc.num_wk_slices[dim]
        if core.factor != slices:
            raise self.error(
                f"{fp}/dim_prop_attr/0/factor_",
                f"core_fold has factor {core.factor} but {dim} has {slices} work slices",
            )
        corelet = folds[index["corelet_fold"]] if "corelet_fold" in index else None
        if corelet is not None and corelet.factor != 1:
            raise self.unsupported(f"{fp}/dim_prop_attr/{index['corelet_fold']}/factor_", corelet.factor, 1)
        elem_arr = self.int_field(v["elemArr"], f"{p}/elemArr", 1)
        n_arr = sum(x.label.startswith("elem_arr_") for x in folds)
        if elem_arr != n_arr:
            raise self.error(f"{p}/elemArr", f"elemArr is {elem_arr} but dim '{dim}' has {n_arr} elem_arr folds")
        if is_stick:
            lane = folds[-1]
            lane_path = f"{fp}/dim_prop_attr/{len(folds) - 1}/factor_"
            if lane.factor != stick_size:
                raise self.error(
                    lane_path,
                    f"elem_arr_0 of the stick dim '{dim}' has factor {lane.factor}, not stickSize_ {stick_size}",
                )
            if lane.alpha not in (0, 1) or lane.beta != 0:
                raise self.error(
                    f"{fp}/dim_prop_func/{len(folds) - 1}/Affine",
                    f"elem_arr_0 of the stick dim steps the lanes of a stick: alpha 1 (or 0, replicated) and beta 0, "
                    f"found alpha {lane.alpha}, beta {lane.beta}",
                )
            for i, x in enumerate(folds[:-1]):
                if x.factor > 1 and (x.alpha % stick_size or x.beta % stick_size):
                    raise self.error(
                        f"{fp}/dim_prop_func/{i}/Affine",
                        f"fold {x.label} of the stick dim '{dim}' moves by {x.alpha} (+{x.beta}), not whole sticks "
                        f"of {stick_size}",
                    )
        return DimCoordinates(
            folds=folds,
            elem_arr=elem_arr,
            spatial=self.int_field(v["spatial"], f"{p}/spatial"),
            temporal=temporal,
            padding=padding,
        )


# -- layouts -------------------------------------------------------------------


def stick_dim(dsc: Dsc, alloc: Allocation) -> str:
    """The dim an allocation's sticks run along (`primaryDsInfo_` of its ds type)."""
    return dsc.primary_ds_info[dsc.lds(alloc.lds_idx).ds_type].stick_dim_order[0]


def core_origin(alloc: Allocation, work_slice: Mapping[str, int]) -> dict[str, int]:
    """The coordinate of a core's first element: its core_fold index is its work slice, every
    other fold at 0. `work_slice` is `SuperDsc.core_to_wk_slice[core]`."""
    return {
        dim: c.folds[0].alpha * work_slice[dim] + sum(f.beta for f in c.folds) for dim, c in alloc.coordinates.items()
    }


def fold_coordinate(coords: DimCoordinates, indices: Sequence[int]) -> int:
    """The coordinate along a dim at fold indices (one per fold, outermost first)."""
    return sum(f.alpha * i + f.beta for f, i in zip(coords.folds, indices, strict=True))


@dataclass(frozen=True)
class AllocationLayout:
    """Where each element of an allocation lives, relative to a start address.

    `dims` is layoutDimOrder_ (innermost first); memory runs, innermost first: the `lanes` elements
    of a stick, then each of `dims` with its extent in `extents` (the stick dim counts sticks).
    `whole` layouts (HBM) span the whole tensor, so that a core's start is the base plus
    `offset(origin)`; piece layouts (LX) hold one core's slice only."""

    dims: tuple[str, ...]
    stick_dim: str
    lanes: int
    word_length: int
    extents: dict[str, int]
    """Positions per dim: elements, or sticks for the stick dim."""
    sizes: dict[str, int]
    """Coordinate extents per dim (max coordinate + 1): the host tensor's sizes."""
    whole: bool

    @property
    def strides(self) -> dict[str, int]:
        """Element stride per dim (the stick dim's is per stick); a lane's is 1."""
        out, stride = {}, self.lanes
        for dim in self.dims:
            out[dim] = stride
            stride *= self.extents[dim]
        return out

    @property
    def elements(self) -> int:
        return self.lanes * math.prod(self.extents.values())

    @property
    def nbytes(self) -> int:
        return self.elements * self.word_length

    @property
    def device_shape(self) -> list[int]:
        """Outermost first, as torch-spyre prints `device_size`: [out/64, mb, 64] for dims (mb, out)."""
        return [self.extents[d] for d in reversed(self.dims)] + [self.lanes]

    def offset(
        self,
        coordinate: Mapping[str, int] | None = None,
        *,
        fold_indices: Mapping[str, Sequence[int]] | None = None,
        coordinates: Mapping[str, DimCoordinates] | None = None,
    ) -> int:
        """Byte offset of an element from the layout's start: give its `coordinate` (relative to the
        start's coordinate), or its `fold_indices` per dim with the allocation's `coordinates` (which
        also places replicated lanes: alpha-0 lanes of one coordinate are distinct bytes).

        In a [16, 512, 64] f16 layout (dims mb, out), `offset({"mb": 1, "out": 65})` is stick 1, row 1,
        lane 1: 2 * (512 * 64 + 64 + 1) bytes.
        """
        strides = self.strides
        if (coordinate is None) == (fold_indices is None):
            raise ValueError("give a coordinate or fold indices, not both")
        if fold_indices is not None:
            if coordinates is None:
                raise ValueError("fold indices need the allocation's coordinates")
            elements = 0
            for dim in self.dims:
                folds, idx = coordinates[dim].folds, fold_indices[dim]
                if dim == self.stick_dim:
                    along = fold_coordinate(DimCoordinates(folds[:-1]), idx[:-1])
                    elements += along // self.lanes * strides[dim] + idx[-1]
                else:
                    elements += fold_coordinate(coordinates[dim], idx) * strides[dim]
            return elements * self.word_length
        elements = 0
        for dim in self.dims:
            c = coordinate[dim]
            if dim == self.stick_dim:
                elements += c // self.lanes * strides[dim] + c % self.lanes
            else:
                elements += c * strides[dim]
        return elements * self.word_length


def allocation_layout(dsc: Dsc, alloc: Allocation, whole: bool | None = None) -> AllocationLayout:
    """The layout of `alloc`: the whole tensor (all folds, core_fold included) for HBM, one core's
    piece (core_fold left out) for LX, unless `whole` says otherwise."""
    if whole is None:
        whole = alloc.component == "hbm"
    lds = dsc.lds(alloc.lds_idx)
    stick = stick_dim(dsc, alloc)
    lanes = SPYRE.stick_bytes // lds.word_length
    extents, sizes = {}, {}
    for dim in alloc.layout_dim_order:
        folds = alloc.coordinates[dim].folds
        counted = folds if whole else folds[1:]
        if dim == stick:
            far = sum(f.alpha * (f.factor - 1) for f in counted[:-1])
            extents[dim] = far // lanes + 1
            sizes[dim] = far + counted[-1].alpha * (lanes - 1) + 1
        else:
            extents[dim] = sizes[dim] = sum(f.alpha * (f.factor - 1) for f in counted) + 1
    return AllocationLayout(tuple(alloc.layout_dim_order), stick, lanes, lds.word_length, extents, sizes, whole)


# -- torch-spyre's default device layout --------------------------------------


def host_dims(layout: AllocationLayout) -> list[str] | None:
    """The dims of the host tensor an allocation is the default layout of, host order: layoutDimOrder_
    L (innermost first) is torch-spyre's default for host dims [L0, L(n-1), ..., L1] when the stick
    dim is the host's last. None when the layout is no tensor's default."""
    dims = list(layout.dims)
    host = dims[:1] + dims[:0:-1]
    return host if host[-1] == layout.stick_dim else None


def host_shape(layout: AllocationLayout) -> tuple[int, ...] | None:
    """The host shape an (HBM, whole) allocation implies under the default layout, or None."""
    dims = host_dims(layout)
    return None if dims is None else tuple(layout.sizes[d] for d in dims)


def default_device_shape(shape: Sequence[int], word_length: int) -> list[int]:
    """torch-spyre's default device size of a host tensor: dims 1..n-2, the sticks of dim n-1
    (zero padded), dim 0, the stick's elements.

    >>> default_device_shape((512, 1024), 2), default_device_shape((4, 256, 512), 2), default_device_shape((512,), 2)
    ([16, 512, 64], [256, 8, 4, 64], [8, 64])
    """
    lanes = SPYRE.stick_bytes // word_length
    shape = list(shape) or [1]
    sticks = -(-shape[-1] // lanes)
    if len(shape) == 1:
        return [sticks, lanes]
    return shape[1:-1] + [sticks, shape[0], lanes]


def to_default_layout(host: np.ndarray, fmt: DataFormat) -> np.ndarray:
    """The bytes of `host` (any float array) in the default device layout, in `fmt` (uint8, 1-D)."""
    host = np.asarray(host, dtype=np.float32)
    shape = host.shape or (1,)
    host = host.reshape(shape)
    lanes = SPYRE.stick_bytes // fmt.word_length
    sticks = -(-shape[-1] // lanes)
    padded = np.zeros((*shape[:-1], sticks * lanes), dtype=np.float32)
    padded[..., : shape[-1]] = host
    split = padded.reshape(*shape[:-1], sticks, lanes)
    n = len(shape)
    order = [n - 1, n] if n == 1 else [*range(1, n - 1), n - 1, 0, n]
    device = np.ascontiguousarray(split.transpose(order))
    return encode(device, fmt).reshape(-1).view(np.uint8)


def from_default_layout(raw: np.ndarray | bytes, shape: Sequence[int], fmt: DataFormat) -> np.ndarray:
    """The float32 host tensor of `shape` held in `raw` (its default device layout in `fmt`)."""
    shape = tuple(shape) or (1,)
    device_shape = default_device_shape(shape, fmt.word_length)
    stored = np.frombuffer(bytes(raw) if isinstance(raw, bytes) else np.ascontiguousarray(raw), dtype=fmt.storage)
    device = decode(stored[: math.prod(device_shape)].reshape(device_shape), fmt)
    n = len(shape)
    if n == 1:
        host = device.reshape(-1)
    else:
        # device axes: dims 1..n-2, sticks, dim 0, lanes -> host axes 0, 1..n-2, sticks, lanes
        host = device.transpose([n - 1, *range(n - 2), n - 2, n]).reshape(*shape[:-1], -1)
    return np.ascontiguousarray(host[..., : shape[-1]])
