"""The uniform dialect (dialects/uniform.py, dataflow-scheduler's Uniform.td):
every op parsed, verified and printed back in custom and generic form, and
one test per verifier rule."""

from __future__ import annotations

import pytest

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.uniform import DefImmutableMappingOp, EqualizePatternOp, UniformizeRegionsOp, YieldOp

UNITS = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %su0 = dataflow.get_unit {core = 0 : i32, name = "C0-mnisu", type = "mnisu"} : index
  %su1 = dataflow.get_unit {core = 1 : i32, name = "C1-mnisu", type = "mnisu"} : index
  %mem0 = dataflow.get_unit {core = 0 : i32, name = "C0-l1", type = "l1"} : index
  %mem1 = dataflow.get_unit {core = 1 : i32, name = "C1-l1", type = "l1"} : index
  %group = dataflow.create_group(%su0, %su1 : index, index) : index"""

EVERY_OP = f"""
func.func @f() {{{UNITS}
  dataflow.program_unit iter_arg : %pu -> (%su0, %su1) : {{
    %map = uniform.def_immutable_mapping([%su0 -> %mem0], [%su1 -> %mem1]):index
    %mem = uniform.query_map(map:%map, key:%pu) : index
    %f0 = arith.constant 0.000000e+00 : f32
    %f_map = uniform.def_immutable_mapping([%su0 -> %f0], [%su1 -> %f0]):index, f32
    %f = uniform.query_map(map:%f_map, key:%pu) : f32
    %r = uniform.uniformize_regions -> index {{
      (%arg0 -> %su0){{
        %m = uniform.query_map(map:%map, key:%arg0) : index
        uniform.yield %m : index
      }}
      (%arg1 -> %su1){{
        uniform.yield %c0 : index
      }}
    }} {{regIndices = [0 : i32, 1 : i32], regLocales = ["a", "b"]}}
    uniform.uniformize_regions -> () {{
      (%arg2 -> %group){{
        dataflow.sync_send %su0 : index
        uniform.yield
      }}
    }}
    %r2, %r3 = uniform.uniformize_regions -> (index, i32) {{
      (%a -> %su0, %su1){{
        %x = arith.constant 3 : i32
        uniform.yield %c1, %x : index, i32
      }}
    }}
    uniform.equalize_pattern {{
      (%e0 -> %su0){{
        dataflow.sync_send %su1 : index
        uniform.yield
      }}
      (%e1 -> %su1){{
        dataflow.sync_send %su0 : index
        uniform.yield
      }}
    }}
  }}
  return
}}
"""


def _print(text: str, generic: bool = False) -> str:
    module = ir.parse_module(text)
    ir.verify(module)
    return ir.print_ir(module, generic=generic) if generic else ir.print_ir(module)


def _ops(text: str, cls):
    return [op for op in ir.parse_module(text).walk() if isinstance(op, cls)]


def test_every_op_round_trips_in_custom_and_generic_form():
    custom = _print(EVERY_OP)
    for line in EVERY_OP.strip().splitlines()[1:-1]:
        assert line.strip() in custom, line
    assert _print(custom) == custom
    assert _print(_print(EVERY_OP, generic=True)) == custom


def test_td_examples_verbatim():
    """Uniform.td's two examples; the mapping prints as upstream: `):index`."""
    text = (
        "func.func @f(%8: index, %9: index) {\n"
        '  %0 = dataflow.get_unit {name = "u", type = "t"} : index\n'
        "  %map = uniform.def_immutable_mapping([%8 -> %0], [%9 -> %0]) : index\n"
        "  scf.for %arg0 = %8 to %9 step %9 {\n"
        "    %v = uniform.query_map(map: %map, key: %arg0) : index\n"
        "  }\n  return\n}"
    )
    printed = _print(text)
    # Numbered values are renumbered, as MLIR does: %8, %9, %0 print as %0, %1, %2.
    assert "uniform.def_immutable_mapping([%0 -> %2], [%1 -> %2]):index" in printed
    assert "uniform.query_map(map:%map, key:%arg0) : index" in printed
    assert _print(printed) == printed


def test_unit_regionsknow_their_units():
    regions = _ops(EVERY_OP, UniformizeRegionsOp)
    first, _, several = regions
    assert [u.name_hint for u in first.region_units(0)] == ["su0"]
    assert [u.name_hint for u in first.region_units(1)] == ["su1"]
    assert first.sizes == [1, 1]
    assert [u.name_hint for u in several.region_units(0)] == ["su0", "su1"]
    assert first.region_arg(1).type == first.units[1].type
    assert first.region_of_unit(first.units[1]) is first.unit_regions[1]
    assert len(several.results) == 2


def test_implicit_yield_is_added_and_printed():
    text = f"func.func @f() {{{UNITS}\n  uniform.uniformize_regions -> () {{\n    (%a -> %su0){{\n    }}\n  }}\n  return\n}}"
    (op,) = _ops(text, UniformizeRegionsOp)
    assert isinstance(op.unit_regions[0].block.last_op, YieldOp)
    assert "(%a -> %su0){\n        uniform.yield\n      }" in _print(text)


def test_list_sizes_and_newly_added_are_not_printed():
    """Upstream's printer elides both (list_sizes is implied by the unit lists)."""
    text = EVERY_OP.replace('regLocales = ["a", "b"]}', 'regLocales = ["a", "b"], newly_added}')
    printed = _print(text)
    assert "list_sizes" not in printed and "newly_added" not in printed
    assert "list_sizes = [1 : i32, 1 : i32]" in _print(text, generic=True)


def test_mapping_lookup():
    mapping = _ops(EVERY_OP, DefImmutableMappingOp)[0]
    su0, su1 = mapping.keys
    assert mapping.lookup(su1) is mapping.values[1]
    assert mapping.lookup(mapping.values[0]) is None


def test_a_lowering_dialect_registered_by_name():
    assert "uniform" in ir.LOWERING_DIALECTS and "uniform" in ir.SPYRE_DIALECTS


def _regions(op: str, *regions: str, results: str = "") -> str:
    body = "".join(f"\n    ({r}" for r in regions)
    arrow = " -> ()" if op == "uniformize_regions" and not results else results
    return f"func.func @f(%arg: index) {{{UNITS}\n  uniform.{op}{arrow} {{{body}\n  }}\n  return\n}}"


RULES = {
    "duplicated unit": (
        _regions("uniformize_regions", "%a -> %su0){\n    }", "%b -> %su0){\n    }"),
        "duplicated unit SSAs found!",
    ),
    "one unit: get_unit or create_group": (
        _regions("uniformize_regions", "%a -> %arg){\n    }"),
        "region's unit_list must be programUnitOp or createGroupOp type!",
    ),
    "several units: all get_unit": (
        _regions("uniformize_regions", "%a -> %su0, %group){\n    }"),
        "when unit_list size > 1, all units must be programUnitOp!",
    ),
    "regions yield the results": (
        _regions("uniformize_regions", "%a -> %su0){\n      uniform.yield\n    }", results=" -> index"),
        "The size of the operands in the yieldOp of a uniformize_regionsOp region differs from the size of its results.",
    ),
    "list sizes add up to the units": (
        f"func.func @f() {{{UNITS}\n"
        '  "uniform.uniformize_regions"(%su0, %su1) <{list_sizes = [1 : i32]}> ({\n'
        "  ^bb0(%a: index):\n"
        '    "uniform.yield"() : () -> ()\n'
        "  }) : (index, index) -> ()\n  return\n}",
        "unit size has to be matched to the list sizes contents.",
    ),
    "one list size per region": (
        f"func.func @f() {{{UNITS}\n"
        '  "uniform.uniformize_regions"(%su0) <{list_sizes = [1 : i32, 0 : i32]}> ({\n'
        "  ^bb0(%a: index):\n"
        '    "uniform.yield"() : () -> ()\n'
        "  }) : (index) -> ()\n  return\n}",
        "expects one list size per region: 2 list sizes for 1 regions",
    ),
    "each region's argument is its unit": (
        f"func.func @f() {{{UNITS}\n"
        '  "uniform.uniformize_regions"(%su0) <{list_sizes = [1 : i32]}> ({\n'
        '    "uniform.yield"() : () -> ()\n'
        "  }) : (index) -> ()\n  return\n}",
        "each region takes one 'index' argument, the unit it runs on",
    ),
    "equalize: duplicated unit": (
        _regions("equalize_pattern", "%a -> %su0){\n    }", "%b -> %su0){\n    }"),
        "duplicated unit SSAs found!",
    ),
    "equalize: one unit: get_unit or create_group": (
        _regions("equalize_pattern", "%a -> %arg){\n    }"),
        "region's unit_list must be programUnitOp or createGroupOp type!",
    ),
    "equalize: several units: all get_unit": (
        _regions("equalize_pattern", "%a -> %su0, %group){\n    }"),
        "when unit_list size > 1, all units must be programUnitOp!",
    ),
    "equalize: as many ops per region": (
        _regions("equalize_pattern", "%a -> %su0){\n      dataflow.sync_send %su1 : index\n    }", "%b -> %su1){\n    }"),
        "regions have different operation size.",
    ),
    "equalize: the same op sequence": (
        _regions(
            "equalize_pattern",
            "%a -> %su0){\n      dataflow.sync_send %su1 : index\n    }",
            "%b -> %su1){\n      dataflow.sync_recv %su0 : index\n    }",
        ),
        "Operation sequences different.",
    ),
    "mapping: get_unit keys stay get_units": (
        f"func.func @f() {{{UNITS}\n  %m = uniform.def_immutable_mapping([%su0 -> %c0], [%c0 -> %c0]):index\n  return\n}}",
        "All Keys are not of same type",
    ),
    "mapping: scalar values all scalar": (
        f"func.func @f() {{{UNITS}\n  %s = symbol.create_symbol : index\n"
        "  %m = uniform.def_immutable_mapping([%c0 -> %s], [%c1 -> %c1]):index\n  return\n}",
        "All map values are expected to be scalar values.",
    ),
    "mapping: other values from one kind of op": (
        f"func.func @f() {{{UNITS}\n  %m = uniform.def_immutable_mapping([%c0 -> %su0], [%c1 -> %c1]):index\n  return\n}}",
        "All map values should be of same type.",
    ),
    "mapping: as many keys as values": (
        "func.func @f(%k: index) {\n"
        '  %m = "uniform.def_immutable_mapping"(%k) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> index\n'
        "  return\n}",
        "expects as many keys as values, got 1 keys and 0 values",
    ),
}


@pytest.mark.parametrize("rule", RULES)
def test_verifier_rule(rule: str):
    text, message = RULES[rule]
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ir.parse_module(text))
    diagnostic = info.value.diagnostic
    assert message in diagnostic.message
    assert diagnostic.location is not None
    failing_line = text.splitlines()[diagnostic.location.line - 1]
    assert "uniform." in failing_line  # located at the uniform op


def test_mixed_scalar_values_are_accepted():
    text = (
        f"func.func @f() {{{UNITS}\n  %s0 = symbol.create_symbol : index\n  %s1 = symbol.create_symbol : index\n"
        "  %m = uniform.def_immutable_mapping([%c0 -> %s0], [%c1 -> %s1]):index\n  return\n}"
    )
    assert "uniform.def_immutable_mapping([%c0 -> %s0], [%c1 -> %s1]):index" in _print(text)


def test_equalize_pattern_single_region_is_accepted():
    """Upstream only asserts more than one region (a no-op in release builds)."""
    text = _regions("equalize_pattern", "%a -> %su0){\n      dataflow.sync_send %su1 : index\n    }")
    (op,) = _ops(text, EqualizePatternOp)
    assert len(op.unit_regions) == 1
    _print(text)
