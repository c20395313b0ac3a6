"""The SuperDSC model (spyre_mlir/superdsc.py): every torch-spyre corpus file round-trips through
parse / to_json, and each kind of bad input is refused with the file and the JSON path."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from spyre_mlir.superdsc import (
    SuperDscError,
    allocation_layout,
    core_origin,
    data_format,
    decode,
    default_device_shape,
    encode,
    format_of_dtype,
    from_default_layout,
    host_shape,
    parse_superdsc,
    read_superdsc,
    to_default_layout,
)

BUNDLES = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "torch-spyre-bundles"
FILES = sorted(BUNDLES.glob("*/sdsc_*.json")) if BUNDLES.is_dir() else []
needs_corpus = pytest.mark.skipif(not FILES, reason="../shared/corpus/torch-spyre-bundles not present")


def corpus_params():
    if not FILES:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/torch-spyre-bundles not present"))]
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}") for f in FILES]


@pytest.mark.parametrize("path", corpus_params())
def test_every_corpus_file_round_trips(path):
    original = json.loads(path.read_text())
    sdsc = read_superdsc(path)
    assert sdsc.to_json() == original
    assert json.dumps(sdsc.to_json(), indent=1) == json.dumps(original, indent=1)


@needs_corpus
def test_layouts_of_the_add_example():
    sdsc = read_superdsc(BUNDLES / "add" / "sdsc_0.json")
    dsc = sdsc.dscs[0]
    layout = allocation_layout(dsc, dsc.schedule[0])
    assert layout.device_shape == [16, 512, 64]
    assert host_shape(layout) == (512, 1024)
    # core 3 takes rows 256.. and columns 64..127: stick 1, row 256
    origin = core_origin(dsc.schedule[0], sdsc.core_to_wk_slice[3])
    assert origin == {"mb": 256, "out": 64}
    assert layout.offset(origin) == 2 * (1 * 512 * 64 + 256 * 64)
    folds = {"mb": [1, 0, 0, 0], "out": [1, 0, 0, 0, 0]}
    assert layout.offset(fold_indices=folds, coordinates=dsc.schedule[0].coordinates) == layout.offset(origin)
    folds["out"][-1], folds["mb"][-1] = 5, 7
    moved = layout.offset(fold_indices=folds, coordinates=dsc.schedule[0].coordinates)
    assert moved == layout.offset({"mb": 256 + 7, "out": 64 + 5})


@needs_corpus
def test_softmax_lx_pieces_are_placed_as_the_compiler_placed_them():
    # sdsc_2: Tensor0 (16 rows x 1024) at LX 2048 ends where Tensor2 starts (34816); the reduced
    # Tensor1 (one replicated stick per row) at LX 0 ends where Tensor0 starts
    dsc = read_superdsc(BUNDLES / "softmax" / "sdsc_2.json").dscs[0]
    by_name = {a.name: a for a in dsc.schedule}
    t0, t1, t2 = (by_name[f"allocate-Tensor{i}_lx"] for i in range(3))
    assert t0.start_address[5] + allocation_layout(dsc, t0).nbytes == t2.start_address[5]
    assert t1.start_address[5] + allocation_layout(dsc, t1).nbytes == t0.start_address[5]
    reduced = allocation_layout(dsc, t1)
    assert reduced.sizes["out"] == 1 and reduced.device_shape == [1, 16, 64]


def test_default_layout_shapes_and_round_trip():
    assert default_device_shape((512, 1024), 2) == [16, 512, 64]
    assert default_device_shape((4, 256, 512), 2) == [256, 8, 4, 64]
    assert default_device_shape((512,), 2) == [8, 64]
    assert default_device_shape((512, 1024), 4) == [32, 512, 32]
    rng = np.random.default_rng(0)
    fmt = data_format("SEN169_FP16")
    host = rng.standard_normal((3, 5, 70)).astype(np.float16).astype(np.float32)
    raw = to_default_layout(host, fmt)
    assert raw.size == 2 * 5 * 2 * 3 * 64
    device = raw.view(np.float16).reshape(5, 2, 3, 64)
    assert device[4, 1, 2, 3] == np.float16(host[2, 4, 64 + 3])
    assert device[4, 1, 2, 10] == 0  # padding of the last stick
    np.testing.assert_array_equal(from_default_layout(raw, host.shape, fmt), host)


def test_bf16_rounds_to_nearest_even():
    fmt = data_format("SEN_BF16")
    assert fmt.word_length == 2
    one_and_half_ulp = np.float32(1.0) + np.float32(2.0**-8) * 1.5
    tie_to_even = np.float32(1.0) + np.float32(2.0**-8)  # exactly halfway between 1 and 1 + 2^-7
    stored = encode(np.array([one_and_half_ulp, tie_to_even, np.nan], dtype=np.float32), fmt)
    assert stored.dtype == np.uint16
    assert list(stored[:2]) == [0x3F81, 0x3F80]
    back = decode(stored, fmt)
    assert back[0] == np.float32(1.0 + 2.0**-7) and back[1] == 1.0 and np.isnan(back[2])


# -- validation ----------------------------------------------------------------


def _mutated(tmp_path, example, mutate):
    obj = json.loads((BUNDLES / example).read_text())
    mutate(obj)
    path = tmp_path / "sdsc_0.json"
    path.write_text(json.dumps(obj))
    return path


def _dsc(obj):
    (body,) = obj.values()
    (dsc,) = body["dscs_"][0].values()
    return dsc


def _set(*keys, value):
    def mutate(obj):
        node = obj
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value

    return mutate


def _delete(*keys):
    def mutate(obj):
        node = obj
        for k in keys[:-1]:
            node = node[k]
        del node[keys[-1]]

    return mutate


def _in_dsc(mutate):
    return lambda obj: mutate(_dsc(obj))


A = "/0_add/dscs_/0/add"
MUL_OUT_FOLDS = f"{A}/scheduleTree_/0/coordinates_/coordInfo/out/folds"
CASES = [
    # (id, example, mutate, JSON path, message fragment)
    ("missing", "add/sdsc_0.json", _in_dsc(_delete("labeledDs_")), f"{A}/labeledDs_", "missing field 'labeledDs_'"),
    ("mistyped", "add/sdsc_0.json", _set("0_add", "numCoresUsed_", value="32"), "/0_add/numCoresUsed_",
     "expected an integer, found a string"),
    ("unknown field", "add/sdsc_0.json", _in_dsc(lambda d: d["scheduleTree_"][1].update(hint_=1)),
     f"{A}/scheduleTree_/1/hint_", "unknown field 'hint_'"),
    ("component", "add/sdsc_0.json", _in_dsc(lambda d: d["scheduleTree_"][0].update(component_="ddr")),
     f"{A}/scheduleTree_/0/component_", "unknown component 'ddr' (known: hbm, lx)"),
    ("fold lengths", "add/sdsc_0.json",
     _in_dsc(lambda d: d["scheduleTree_"][0]["coordinates_"]["coordInfo"]["out"]["folds"]["dim_prop_func"].pop()),
     MUL_OUT_FOLDS, "dim_prop_func has 4 entries but dim_prop_attr has 5"),
    ("factor 0", "add/sdsc_0.json",
     _in_dsc(lambda d: d["scheduleTree_"][0]["coordinates_"]["coordInfo"]["out"]["folds"]["dim_prop_attr"][3]
             .update(factor_=0)),
     f"{MUL_OUT_FOLDS}/dim_prop_attr/3/factor_", "must be at least 1, found 0"),
    ("core fold", "add/sdsc_0.json",
     _in_dsc(lambda d: d["scheduleTree_"][0]["coordinates_"]["coordInfo"]["out"]["folds"]["dim_prop_attr"][0]
             .update(factor_=8)),
     f"{MUL_OUT_FOLDS}/dim_prop_attr/0/factor_", "core_fold has factor 8 but out has 16 work slices"),
    ("stick lanes", "add/sdsc_0.json",
     _in_dsc(lambda d: d["scheduleTree_"][0]["coordinates_"]["coordInfo"]["out"]["folds"]["dim_prop_attr"][4]
             .update(factor_=32)),
     f"{MUL_OUT_FOLDS}/dim_prop_attr/4/factor_", "elem_arr_0 of the stick dim 'out' has factor 32, not stickSize_ 64"),
    ("dim not in N_", "add/sdsc_0.json",
     _in_dsc(lambda d: d["scheduleTree_"][0]["coordinates_"]["coordInfo"].update(
         zz=d["scheduleTree_"][0]["coordinates_"]["coordInfo"]["mb"])),
     f"{A}/scheduleTree_/0/coordinates_/coordInfo/zz", "dim 'zz' is not in N_ (mb, out)"),
    ("slice out of range", "add/sdsc_0.json", _set("0_add", "coreIdToWkSlice_", "5", "mb", value=2),
     "/0_add/coreIdToWkSlice_/5/mb", "slice 2 is out of range: mb has 2 work slices"),
    ("core not covered", "add/sdsc_0.json", _delete("0_add", "coreIdToWkSlice_", "31"),
     "/0_add/coreIdToWkSlice_", "cores [31] have no entry"),
    ("ldsIdx", "add/sdsc_0.json", _in_dsc(lambda d: d["scheduleTree_"][2].update(ldsIdx_=7)),
     f"{A}/scheduleTree_/2/ldsIdx_", "no labeled ds has ldsIdx_ 7 (have: 0, 1, 2)"),
    ("label", "add/sdsc_0.json", _in_dsc(lambda d: d["computeOp_"][0]["inputLabeledDs"].__setitem__(1, "Tensor1-idx2")),
     f"{A}/computeOp_/0/inputLabeledDs/1", "'Tensor1-idx2' is not '<dsName>-idx<ldsIdx>' of a labeled ds"),
    ("time folds", "add/sdsc_0.json", _set("0_add", "sdscFoldProps_", value=[{"factor_": 2, "label_": "time"}]),
     "/0_add/sdscFoldProps_", 'is not supported (every known example has [{"factor_": 1, "label_": "time"}])'),
    ("data stages", "add/sdsc_0.json",
     _in_dsc(lambda d: d["dataStageParam_"].update({"1": d["dataStageParam_"]["0"]})),
     f"{A}/dataStageParam_", '["0", "1"] is not supported (every known example has ["0"])'),
    ("masking", "add/sdsc_0.json", _in_dsc(_set("coordinateMasking_", value={"mb": [0, 3]})),
     f"{A}/coordinateMasking_", "is not supported (every known example has {})"),
    ("constants", "add/sdsc_0.json", _in_dsc(_set("constantInfo_", value='{"0": 0.5}')),
     f"{A}/constantInfo_", 'is not supported (every known example has "{}")'),
    ("word length", "add/sdsc_0.json", _in_dsc(lambda d: d["labeledDs_"][1].update(wordLength=4)),
     f"{A}/labeledDs_/1/wordLength", "wordLength 4 does not match dataFormat_ SEN169_FP16 (2 bytes)"),
    ("data format", "add/sdsc_0.json", _in_dsc(lambda d: d["labeledDs_"][1].update(dataFormat_="SEN143_FP8")),
     f"{A}/labeledDs_/1/dataFormat_", "unknown data format 'SEN143_FP8'"),
    ("symbol", "add/sdsc_0.json",
     _in_dsc(lambda d: d["scheduleTree_"][0]["startAddressCoreCorelet_"]["data_"].update({"[3, 0, 0]": "4096"})),
     f"{A}/scheduleTree_/0/startAddressCoreCorelet_/data_/[3, 0, 0]", "a symbolic start address is a negative symbol id"),
]  # fmt: skip


@needs_corpus
@pytest.mark.parametrize(("example", "mutate", "where", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_its_json_path(tmp_path, example, mutate, where, message):
    path = _mutated(tmp_path, example, mutate)
    with pytest.raises(SuperDscError) as info:
        read_superdsc(path)
    assert str(info.value).startswith(f"{path}: at {where}: "), str(info.value)
    assert message in str(info.value)


@needs_corpus
def test_unknown_node_type_message(tmp_path):
    path = _mutated(tmp_path, "add/sdsc_0.json", _in_dsc(lambda d: d["scheduleTree_"][2].update(nodeType_="transfer")))
    with pytest.raises(SuperDscError) as info:
        read_superdsc(path)
    assert str(info.value) == (
        f"{path}: at /0_add/dscs_/0/add/scheduleTree_/2/nodeType_: unknown node type 'transfer' (known: allocate)"
    )


@pytest.mark.parametrize(
    ("obj", "message"),
    [([1], "a SuperDSC file holds one JSON object, found a list"), ({"0_a": {}, "1_b": {}}, "has one key")],
)
def test_the_file_is_one_object_with_one_key(obj, message):
    with pytest.raises(SuperDscError) as info:
        parse_superdsc(obj, "x/sdsc_0.json")
    assert str(info.value).startswith("x/sdsc_0.json: at /: ") and message in str(info.value)


@needs_corpus
def test_debug_handle_is_free_form(tmp_path):
    def mutate(obj):
        obj["0_add"]["debug_handle_"]["anything"] = [{"goes": None}]

    sdsc = read_superdsc(_mutated(tmp_path, "add/sdsc_0.json", mutate))
    assert sdsc.debug_handle["anything"] == [{"goes": None}]
    assert sdsc.to_json()["0_add"]["debug_handle_"]["anything"] == [{"goes": None}]


@needs_corpus
def test_a_parsed_file_is_not_aliased_by_its_json():
    obj = json.loads((BUNDLES / "add" / "sdsc_0.json").read_text())
    sdsc = parse_superdsc(copy.deepcopy(obj), "add")
    out = sdsc.to_json()
    out["0_add"]["debug_handle_"]["id"] = "changed"
    assert sdsc.to_json() == obj


def test_formats_of_numpy_dtypes():
    assert format_of_dtype(np.float16) == data_format("SEN169_FP16")
    assert format_of_dtype("float32").storage == np.float32
    with pytest.raises(ValueError, match="no SuperDSC data format for int8"):
        format_of_dtype(np.int8)
