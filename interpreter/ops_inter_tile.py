"""ktdp inter-tile communication: produce, reduce, consume (docs/inter-tile.md §4).

A collective is a reduction over the core axis within groups, never a
per-core message loop. Everything about the sets is static: while decoding,
the groups, producers, consumers and dependency sets are grounded on the
grid into tables indexed by linear core id (after the legality checks of
`spyre_mlir.analysis.inter_tile`, bounded by the grid being run). At run time:

- `ktdp.inter_tile_produce` runs its region on the producer lanes of the
  frame only, with `%gid` bound, and keeps their partials in a `Future`
  (one row per producer present) with the cores that executed it.
- `ktdp.inter_tile_reduce` folds, per *fold key* (a group, or with a
  dependency set a consumer), the sequence of values v_0 .. v_{k-1} of the
  group's producers in ascending tile id: the producer's partials, or the
  identity operands where the dependency set leaves the producer out.
  Step j runs the combiner once, on a frame whose lanes are the keys still
  folding: `((v_0 . v_1) . v_2) ...`, each step rounding in the element type
  as the combiner's ops do.
- `ktdp.inter_tile_consume` gathers each consumer's single source's partials.

The lanes that execute a delivery op are the cores of that instance (the
produce is in the same block, U2); a consumer waiting for a producer not
among them is the divergent-control-flow error, located at the delivery op.
Results on non-consumers are undefined: using them is a located error
(`FunctionCompiler.define_on_some_cores`). Bytes delivered are counted per
core in the run's statistics (`RunStats.communication`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import scf
from xdsl.ir import Operation

from spyre_mlir.analysis.inter_tile import Delivery, check_produce, ground_delivery, ground_groups
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import (
    InterTileConsumeOp,
    InterTileProduceOp,
    InterTileReduceOp,
)
from spyre_mlir.interpreter.core import FunctionCompiler, Step, gather_frame, handles, value_name
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.lanes import LaneContext


@dataclass
class Future:
    """What one execution of a produce left for its delivery op."""

    present: np.ndarray  # bool per core id: executed the produce (this instance)
    row: np.ndarray  # int64 per core id: its row in `partials`, -1 if it produced nothing
    partials: list[np.ndarray]  # per role: (producers present, *partial shape)


def _tiles(tiles) -> str:
    return ", ".join(str(int(t)) for t in tiles)


def _require_batched(fc: FunctionCompiler, op: Operation) -> None:
    if not fc.batched:
        raise error(
            op,
            f"'{op.name}' needs every core of the grid at once: per-core execution runs the cores one after "
            "another and cannot deliver between them (run batched: execution='auto' or 'batched')",
        )


def _produce_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The future and `%gid` differ between cores, whatever the region reads."""
    assert isinstance(op, InterTileProduceOp)
    return fc.mark([op.future, op.body.block.args[0]])


@handles(InterTileProduceOp, varying=_produce_varying)
def _produce(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, InterTileProduceOp)
    _require_batched(fc, op)
    ncores = len(fc.program.cores)
    check_produce(op, ncores)
    group_of = ground_groups(op, ncores).group_of_producer
    block = op.body.block
    body = fc.compile_block(block)
    gid = fc.slot(block.args[0])
    captured = fc.varying_captured_slots(op.body)
    yielded = block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
    fixes = [fc.lanes_of(v) for v in yielded]
    empty = [
        np.empty((0, *v.type.get_shape()), fc.format(v).compute)  # pyright: ignore[reportAttributeAccessIssue]
        for v in yielded
    ]
    out = fc.slot(op.future)

    def step(frame):
        ctx = frame[0]
        linear = ctx.linear
        groups_here = group_of[linear]
        producing = np.nonzero(groups_here >= 0)[0]
        present = np.zeros(ncores, bool)
        present[linear] = True
        row = np.full(ncores, -1, np.int64)
        row[linear[producing]] = np.arange(producing.shape[0])
        if producing.shape[0] == 0:
            partials = empty
        else:
            sub = frame if producing.shape[0] == ctx.count else gather_frame(frame, captured, producing)
            sub[gid] = groups_here[producing]
            partials = [fix(v, producing.shape[0]) for fix, v in zip(fixes, body(sub))]
        frame[out] = Future(present, row, partials)

    return step


def _delivery_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Results always differ between cores (a uniform partial yielded by four
    tiles still folds to four times itself); so do the combiner's arguments,
    whose lanes are the folds."""
    changed = fc.mark(op.results)
    for region in op.regions:
        changed |= fc.mark(region.block.args)
    return changed


def _enclosing_loops(fc: FunctionCompiler, op: Operation) -> list[tuple[scf.ForOp, int]]:
    loops = []
    parent = op.parent_op()
    while parent is not None and parent is not fc.func_op:
        if isinstance(parent, scf.ForOp):
            loops.append((parent, fc.slot(parent.body.block.args[0])))
        parent = parent.parent_op()
    return loops


@dataclass
class Arrival:
    """A delivery op executed by one set of lanes: who consumes and whom they
    wait for, computed once per distinct set of lanes (loops repeat them)."""

    lanes: np.ndarray  # lanes of the frame that consume
    consumers: np.ndarray  # their core ids
    awaited: np.ndarray  # every producer some arriving consumer waits for
    received: np.ndarray  # per core id: partials received from other tiles
    sent: np.ndarray  # per core id: partials sent to other tiles
    undefined: np.ndarray  # per core id: holds no result (not a consumer of this arrival)
    fold: object = None  # the reduce's fold plan for these consumers


def _arrival(delivery: Delivery, cache: dict, linear: np.ndarray) -> Arrival:
    key = linear.tobytes()
    found = cache.get(key)
    if found is not None:
        return found
    ncores = delivery.group_of_consumer.shape[0]
    lanes = np.nonzero(delivery.group_of_consumer[linear] >= 0)[0]
    consumers = linear[lanes]
    needs = delivery.needs[consumers]
    remote = (needs >= 0) & (needs != consumers[:, None])
    received = np.zeros(ncores, np.int64)
    np.add.at(received, consumers, remote.sum(axis=1))
    sent = np.zeros(ncores, np.int64)
    np.add.at(sent, needs[remote], 1)
    undefined = np.ones(ncores, bool)
    undefined[consumers] = False
    arrival = Arrival(lanes, consumers, np.unique(needs[needs >= 0]), received, sent, undefined)
    if len(cache) < 64:
        cache[key] = arrival
    return arrival


def _divergence(op: Operation, delivery: Delivery, arrival: Arrival, loops, frame, fut: Future) -> InterpreterError:
    """The error for consumers waiting for producers that did not execute the produce."""
    consumers, needs = arrival.consumers, delivery.needs[arrival.consumers]
    missing = (needs >= 0) & ~fut.present[np.maximum(needs, 0)]
    first = int(np.nonzero(missing.any(axis=1))[0][0])
    g = int(delivery.group_of_consumer[consumers[first]])
    in_group = delivery.group_of_consumer[consumers] == g
    absent = sorted(set(needs[missing & in_group[:, None]].tolist()))
    waiting = consumers[missing.any(axis=1) & in_group]
    lane = arrival.lanes[first]
    where = "".join(
        f" (at {value_name(loop.body.block.args[0])} = {int(frame[slot][lane] if np.ndim(frame[slot]) else frame[slot])}"
        " of the enclosing scf.for)"
        for loop, slot in loops
    )
    return InterpreterError(
        f"producer tile{'s' if len(absent) > 1 else ''} {_tiles(absent)} of group {g} "
        f"{'does' if len(absent) == 1 else 'do'} not reach this {op.name} (divergent control flow): "
        f"consumer tile{'s' if len(waiting) > 1 else ''} {_tiles(waiting)} would wait for "
        f"{'it' if len(absent) == 1 else 'them'} forever{where}"
    )


def _arrive(op, delivery: Delivery, cache: dict, loops, frame, fut: Future, nbytes: int, ring: bool, fc) -> Arrival:
    """The arrival of the frame's lanes, after checking that every producer they
    wait for executed the produce of this instance; counts the bytes delivered
    (logical volumes; for a reduce also ktir-cpu's ring charge, (cores - 1) x
    partial bytes on every core that executes it: docs/inter-tile.md §4.8)."""
    linear = frame[0].linear
    arrival = _arrival(delivery, cache, linear)
    if not fut.present[arrival.awaited].all():
        raise _divergence(op, delivery, arrival, loops, frame, fut)
    comm = fc.program.runtime.stats.communication(len(fc.program.cores))
    comm["received"] += arrival.received * nbytes
    comm["sent"] += arrival.sent * nbytes
    if ring:
        comm["ring"][linear] += (len(fc.program.cores) - 1) * nbytes
    return arrival


def _role_bytes(fc: FunctionCompiler, op: Operation) -> int:
    """Bytes of one tile's partials (all roles), in their storage types."""
    return sum(
        int(np.prod(r.type.get_shape(), dtype=np.int64)) * fc.format(r).itemsize  # pyright: ignore[reportAttributeAccessIssue]
        for r in op.results
    )


def _results(fc: FunctionCompiler, op: Operation, why: str) -> tuple[list[int], int, list, list]:
    """Result slots, the slot of the undefined-cores mask, and per result its shape and dtype."""
    slots = [fc.slot(r) for r in op.results]
    mask = fc.new_slot()
    for r in op.results:
        fc.define_on_some_cores(r, mask, op, why)
    shapes = [tuple(r.type.get_shape()) for r in op.results]  # pyright: ignore[reportAttributeAccessIssue]
    dtypes = [fc.format(r).compute for r in op.results]
    return slots, mask, shapes, dtypes


def _deliver(frame, arrival: Arrival, values: list[np.ndarray], slots, mask_slot, shapes, dtypes) -> None:
    """Write each result: the consumer lanes' values, zeros (undefined) elsewhere."""
    count, lanes = frame[0].count, arrival.lanes
    for slot, value, shape, dtype in zip(slots, values, shapes, dtypes):
        value = value.reshape(lanes.shape[0], *shape)  # a dropped unit dim never moves data
        if lanes.shape[0] == count:
            frame[slot] = value
            continue
        out = np.zeros((count, *shape), dtype)
        out[lanes] = value
        frame[slot] = out
    frame[mask_slot] = arrival.undefined


@handles(InterTileReduceOp, varying=_delivery_varying)
def _reduce(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, InterTileReduceOp)
    _require_batched(fc, op)
    ncores = len(fc.program.cores)
    delivery = ground_delivery(op, ncores)
    future_slot = fc.slot(op.future)
    loops = _enclosing_loops(fc, op)
    block = op.combiner.block
    leaked = [v for v in fc.captured(op.combiner) if fc.is_varying(v)]
    if leaked:
        raise error(
            op,
            f"the combiner region reads {value_name(leaked[0])}, which may differ between tiles: a combiner folds "
            "partials of several tiles and may read only them and values common to all tiles",
        )
    combine = fc.compile_block(block)
    n = len(op.identity)
    lhs_slots = [fc.slot(a) for a in block.args[:n]]
    rhs_slots = [fc.slot(a) for a in block.args[n:]]
    combine_fixes = [fc.lanes_of(v) for v in block.last_op.operands]  # pyright: ignore[reportOptionalMemberAccess]
    identity_slots = [fc.slot(v) for v in op.identity]
    identity_varying = [fc.is_varying(v) for v in op.identity]
    slots, mask_slot, shapes, dtypes = _results(
        fc, op, f"they are not in consumer_tiles_per_group of the {op.name} that defines it"
    )
    nbytes = _role_bytes(fc, op)

    # Fold keys: without a dependency set every consumer of a group receives
    # the same fold, so fold once per group; with one, once per consumer.
    per_consumer = op.producer_dependency_per_consumer is not None
    groups = delivery.groups
    width = max((len(p) for p in groups.producers.values()), default=0)
    n_keys = ncores if per_consumer else len(groups.ids)
    key_of = np.full(ncores, -1, np.int64)  # consumer -> fold key
    seq = np.full((n_keys, max(width, 1)), -1, np.int64)  # fold key -> producers, ascending
    use = np.zeros((n_keys, max(width, 1)), bool)  # True: the partial; False: the identity
    for k, g in enumerate(groups.ids):
        consumers = np.nonzero(delivery.group_of_consumer == g)[0]
        producers = groups.producers[g]
        if not per_consumer:
            key_of[consumers] = k
            seq[k, : len(producers)] = producers
            use[k, : len(producers)] = True
            continue
        for c in consumers.tolist():
            key_of[c] = c
            seq[c, : len(producers)] = producers
            use[c, : len(producers)] = np.isin(producers, delivery.needs[c])
    length = (seq >= 0).sum(axis=1)

    def identities(frame) -> list:
        values = []
        for slot, varying in zip(identity_slots, identity_varying):
            value = frame[slot]
            if varying:  # shared by all tiles ([TD]); a value that differs has no meaning
                if not (value == value[:1]).all():
                    raise InterpreterError("the identity operands differ between tiles: they must be common to all")
                value = value[0]
            values.append(value)
        return values

    @dataclass
    class FoldStep:
        """Step j of the fold for one arrival: the keys still folding and their v_j."""

        folding: np.ndarray | None  # indices into the keys; None: all of them
        context: LaneContext  # the combiner's lanes: the keys folding
        tiles: np.ndarray  # the producer at position j of each key folding
        take: np.ndarray | None  # True: its partial, False: the identity; None: all partials

    def fold_plan(consumers: np.ndarray) -> tuple[np.ndarray, list[FoldStep]]:
        keys, index = np.unique(key_of[consumers], return_inverse=True)
        lengths = length[keys]
        steps = []
        for j in range(int(lengths.max())):
            folding = np.nonzero(lengths > j)[0]
            chosen = keys[folding]
            take = use[chosen, j]
            steps.append(
                FoldStep(
                    None if folding.shape[0] == keys.shape[0] else folding,
                    LaneContext((chosen,), chosen),
                    seq[chosen, j],
                    None if take.all() else take,
                )
            )
        return index, steps

    def value_at(fut: Future, fold: FoldStep, ident: list) -> list[np.ndarray]:
        rows = fut.row[fold.tiles]  # -1 where the identity is taken instead
        take = fold.take
        if take is None:
            return [partials[rows] for partials in fut.partials]
        values = []
        for partials, identity in zip(fut.partials, ident):
            if not take.any():
                values.append(np.broadcast_to(identity, (take.shape[0], *np.shape(identity))))
                continue
            mask = take.reshape(-1, *([1] * np.ndim(identity)))
            values.append(np.where(mask, partials[np.where(take, rows, 0)], identity))
        return values

    cache: dict = {}

    def step(frame):
        fut = frame[future_slot]
        arrival = _arrive(op, delivery, cache, loops, frame, fut, nbytes, True, fc)
        if arrival.lanes.shape[0] == 0:
            empty = [np.empty((0, *s), d) for s, d in zip(shapes, dtypes)]
            _deliver(frame, arrival, empty, slots, mask_slot, shapes, dtypes)
            return
        if arrival.fold is None:
            arrival.fold = fold_plan(arrival.consumers)
        index, plan = arrival.fold
        ident = identities(frame)
        acc = value_at(fut, plan[0], ident)
        for fold in plan[1:]:
            sub = frame.copy()
            sub[0] = fold.context
            for slot, value in zip(lhs_slots, acc):
                sub[slot] = value if fold.folding is None else value[fold.folding]
            for slot, value in zip(rhs_slots, value_at(fut, fold, ident)):
                sub[slot] = value
            count = fold.context.count
            combined = [fix(v, count) for fix, v in zip(combine_fixes, combine(sub))]
            if fold.folding is None:
                acc = combined
            else:
                acc = [np.array(a) for a in acc]
                for a, v in zip(acc, combined):
                    a[fold.folding] = v
        _deliver(frame, arrival, [a[index] for a in acc], slots, mask_slot, shapes, dtypes)

    return step


@handles(InterTileConsumeOp, varying=_delivery_varying)
def _consume(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, InterTileConsumeOp)
    _require_batched(fc, op)
    ncores = len(fc.program.cores)
    delivery = ground_delivery(op, ncores)
    future_slot = fc.slot(op.future)
    loops = _enclosing_loops(fc, op)
    source = delivery.needs[:, 0]  # R8a/R8b: exactly one per consumer
    slots, mask_slot, shapes, dtypes = _results(
        fc, op, f"they are not in consumer_tiles_per_group of the {op.name} that defines it"
    )
    nbytes = _role_bytes(fc, op)

    cache: dict = {}

    def step(frame):
        fut = frame[future_slot]
        arrival = _arrive(op, delivery, cache, loops, frame, fut, nbytes, False, fc)
        rows = fut.row[source[arrival.consumers]]
        _deliver(frame, arrival, [p[rows] for p in fut.partials], slots, mask_slot, shapes, dtypes)

    return step
