"""The one refusal type (`spyre_mlir.diagnostics.Refusal`): raised or returned, printed
`KIND: message` with a kind, and turned into the located `DiagnosticError` at its op."""

from enum import Enum

import pytest

from spyre_mlir.diagnostics import DiagnosticError, Location, Refusal
from spyre_mlir.ir import parse_module

SOURCE = """\
func.func @f(%a: index) -> index {
  %c = arith.constant 4 : index
  %s = arith.addi %a, %c : index
  func.return %s : index
}
"""


class Kind(Enum):
    DYNAMIC_BOUNDS = "dynamic bounds"


def _ops():
    module = parse_module(SOURCE, "k.mlir")
    body = list(next(iter(module.ops)).regions[0].block.ops)
    return body[0], body[1]  # the constant (line 2), the addi (line 3)


def test_printed_as_its_message_or_kind_and_message():
    assert str(Refusal(None, "the group returns values")) == "the group returns values"
    assert str(Refusal(None, "bounds not known", Kind.DYNAMIC_BOUNDS)) == "DYNAMIC_BOUNDS: bounds not known"
    assert Refusal(None, "m").kind is None and Refusal(None, "m").message == "m"


def test_raised_and_caught_keeps_op_message_and_kind():
    const, _ = _ops()
    with pytest.raises(Refusal) as caught:
        raise Refusal(const, "cannot tile dim 1", Kind.DYNAMIC_BOUNDS)
    assert caught.value.op is const
    assert caught.value.message == "cannot tile dim 1"
    assert caught.value.kind is Kind.DYNAMIC_BOUNDS


def test_returned_as_a_value_is_truthy_and_compares_by_op_kind_and_message():
    const, add = _ops()

    def check(ok: bool) -> Refusal | None:
        return None if ok else Refusal(add, "no", Kind.DYNAMIC_BOUNDS)

    assert check(False) and check(True) is None
    assert check(False) == Refusal(add, "no", Kind.DYNAMIC_BOUNDS)
    assert check(False) != Refusal(const, "no", Kind.DYNAMIC_BOUNDS)  # another op
    assert check(False) != Refusal(add, "no")  # no kind
    assert check(False) != Refusal(add, "yes", Kind.DYNAMIC_BOUNDS)
    assert len({check(False), check(False)}) == 1


def test_error_is_located_at_the_op_with_the_message_alone():
    const, add = _ops()
    err = Refusal(add, "a tiled reduction is not supported", Kind.DYNAMIC_BOUNDS).error()
    assert isinstance(err, DiagnosticError)
    assert err.diagnostic.severity == "error"
    assert err.diagnostic.message == "a tiled reduction is not supported"  # the kind is for counting, not shown
    assert err.diagnostic.location == Location("k.mlir", 3, 3)
    assert err.diagnostic.render().startswith("k.mlir:3:3: error: a tiled reduction is not supported")


def test_error_carries_notes_at_other_ops():
    const, add = _ops()
    err = Refusal(add, "refused").error((const, "the tiling was asked for here"))
    (note,) = err.diagnostic.notes
    assert note.severity == "note" and note.message == "the tiling was asked for here"
    assert note.location == Location("k.mlir", 2, 3)


def test_error_without_an_op_has_no_location():
    err = Refusal(None, "engine=ray needs Ray").error()
    assert err.diagnostic.location is None
    assert err.diagnostic.render() == "error: engine=ray needs Ray"
