"""A bug in a verifier is reported as an internal error, never as bad input."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.irdl import IRDLOperation, irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError


@irdl_op_definition
class CrashingOp(IRDLOperation):
    name = "test.crashing"

    def verify_(self) -> None:
        raise KeyError("a bug")


@irdl_op_definition
class RejectingOp(IRDLOperation):
    name = "test.rejecting"

    def verify_(self) -> None:
        raise VerifyException("bad input")


def test_a_crashing_verifier_is_an_internal_error():
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ModuleOp([CrashingOp()]))
    message = info.value.diagnostic.message
    assert message.startswith("internal error while verifying 'test.crashing': KeyError")
    assert "please report" in message


def test_a_verify_exception_is_a_user_error():
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ModuleOp([RejectingOp()]))
    assert info.value.diagnostic.message == "'test.rejecting' op bad input"
