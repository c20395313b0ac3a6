"""The `sdscbundle` dialect: the ops of a bundle (`bundle.mlir`, docs/bundle.md).

    "sdscbundle.sdsc_execute"(%addr_0, %addr_1, %n) {sdsc_filename = "sdsc_0.json"} : (index, index, index) -> ()

One op: run the SDSC function that `sdsc_N.json` (a file beside the bundle)
describes, on these operands (per-tile HBM byte addresses, index values and
the kernel's scalar arguments, in the order of the function's parameters). It is written and printed only
in MLIR's generic form, so that upstream MLIR reads a bundle with
`--allow-unregistered-dialect`. `sdsc_filename` is an attribute (not a
property), a plain relative file name ending in `.json`. The interpreter runs
it in interpreter/ops_sdscbundle.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, StringAttr
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, attr_def, irdl_op_definition, var_operand_def
from xdsl.utils.exceptions import VerifyException


def check_sdsc_filename(name: str) -> str | None:
    """Why `name` is not a valid `sdsc_filename` (None when it is): a plain
    file name, relative to the bundle's directory, ending in `.json`."""
    if "/" in name or "\\" in name or name.startswith(".."):
        return f"sdsc_filename must be a plain file name beside the bundle (no '/' or '..'), got '{name}'"
    if not name.endswith(".json") or name == ".json" or "\0" in name:
        return f"sdsc_filename must name a .json file, got '{name}'"
    return None


@irdl_op_definition
class SdscExecuteOp(IRDLOperation):
    """Run the SDSC function of `sdsc_filename` on the operands (see module docstring)."""

    name = "sdscbundle.sdsc_execute"

    args = var_operand_def(IndexType | IntegerType | AnyFloat)
    sdsc_filename = attr_def(StringAttr)

    def __init__(self, args: Sequence[SSAValue], sdsc_filename: str | StringAttr):
        if isinstance(sdsc_filename, str):
            sdsc_filename = StringAttr(sdsc_filename)
        super().__init__(operands=[list(args)], attributes={"sdsc_filename": sdsc_filename})

    @property
    def filename(self) -> str:
        return self.sdsc_filename.data

    def verify_(self) -> None:
        for i, value in enumerate(self.args):
            if not isinstance(value.type, IndexType | IntegerType | AnyFloat):
                raise VerifyException(f"operand #{i} must be an index or a scalar, but got {value.type}")
        problem = check_sdsc_filename(self.filename)
        if problem is not None:
            raise VerifyException(problem)


SDSCBUNDLE = Dialect("sdscbundle", [SdscExecuteOp], [])
