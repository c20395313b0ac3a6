"""Helpers for the op subclasses that give upstream ops MLIR's verifiers."""

from __future__ import annotations

import dataclasses
import functools

from xdsl.irdl import IRDLOperation, OpDef, OpTraits


@functools.cache
def definition_without(cls: type[IRDLOperation], *trait_types: type) -> OpDef:
    """`cls`'s IRDL definition less its traits of `trait_types`: to verify
    the constraints xDSL declares, and then, in MLIR's place and order, a
    check that xDSL makes as a trait."""
    definition = cls.get_irdl_definition()
    kept = tuple(t for t in definition.traits if not isinstance(t, trait_types))
    return dataclasses.replace(definition, traits=OpTraits(lambda: kept))
