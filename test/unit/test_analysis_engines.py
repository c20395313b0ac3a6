"""The engine simulator (analysis/engines.py), without IR."""

from __future__ import annotations

import pytest

from spyre_mlir.analysis.engines import (
    Deadlock,
    Fifo,
    FifoOverflow,
    FifoUnderflow,
    Loop,
    Signal,
    Simulator,
    Step,
    StepCapExceeded,
    Wait,
)


def pipeline(n: int, load: float, store: float, depth: int = 2, **options) -> Simulator:
    """A load engine filling FIFO b, a store engine draining it, `depth` slots handed over by two semaphores."""
    sim = Simulator({"full": 0, "empty": depth}, {"b": Fifo(depth)}, **options)
    ld = Step("ld", load, fills=("b",))
    st = Step("st", store, takes=("b",))
    sim.add_engine("load", [x for _ in range(n) for x in (Wait("empty"), ld, Signal("full"))])
    sim.add_engine("store", [x for _ in range(n) for x in (Wait("full"), st, Signal("empty"))])
    return sim


def test_two_engine_pipeline_timing():
    sim = pipeline(4, load=4.0, store=3.0).run()
    load, store = sim.engines
    assert load.clock == 16.0  # the loads back to back: the store never holds up two slots
    assert store.clock == 4.0 * 4 + 3.0  # each store right after its load
    assert sim.runs == {"ld": 4, "st": 4}
    assert sim.fifos["b"].count == 0


def test_slow_consumer_holds_the_producer_back():
    sim = pipeline(4, load=1.0, store=5.0, depth=1, record=True).run()
    ends = [e.end for e in sim.events if e.step.key == "ld"]
    # depth 1: load i waits for store i-1 to signal "empty", store i for load i
    assert ends == [1.0, 7.0, 13.0, 19.0]
    assert sim.engines[1].clock == 19.0 + 5.0


def test_fifo_bound_is_an_overflow():
    sim = Simulator({"go": 3}, {"b": Fifo(2)})
    sim.add_engine("producer", [Wait("go"), Step("ld", fills=("b",)), Wait("go"), Step("ld", fills=("b",)),
                                Wait("go"), Step("ld", fills=("b",))])
    with pytest.raises(FifoOverflow) as info:
        sim.run()
    assert info.value.fifo == "b" and info.value.run == 2 and info.value.engine.name == "producer"


def test_underflow_and_locals():
    sim = Simulator({}, {"b": Fifo(1)})
    sim.add_engine("consumer", [Step("st", takes=("b",))])
    with pytest.raises(FifoUnderflow):
        sim.run()
    sim = Simulator({}, {"v": Fifo(1, local=True)})
    sim.add_engine("e", [Step("read", takes=("v",))])
    with pytest.raises(FifoUnderflow):
        sim.run()
    sim = Simulator({}, {"v": Fifo(1, local=True)})
    sim.add_engine("e", [Step("write", fills=("v",)), Step("write", fills=("v",)), Step("read", takes=("v",)),
                         Step("read", takes=("v",))])
    sim.run()  # a local is overwritten and kept
    assert sim.fifos["v"].written and sim.fifos["v"].peak == 0


def test_deadlock_names_every_blocked_engine():
    sim = Simulator({"a": 0, "b": 0})
    sim.add_engine("x", [Wait("a", 1, tag="wait a"), Signal("b")])
    sim.add_engine("y", [Wait("b", 2, tag="wait b"), Signal("a")])
    with pytest.raises(Deadlock) as info:
        sim.run()
    assert [(e.name, w.tag, value) for e, w, value in info.value.blocked] == [("x", "wait a", 0), ("y", "wait b", 0)]


def test_a_finishing_engine_is_progress():
    sim = Simulator({"a": 0})
    sim.add_engine("idle", [])
    sim.add_engine("signaller", [Signal("a")])
    sim.add_engine("waiter", [Wait("a")])
    sim.run(eager=False)
    assert all(e.done for e in sim.engines)


def test_semaphore_moves_the_waiter_to_the_latest_unit():
    sim = Simulator({"s": 1})
    sim.add_engine("slow", [Step("work", 10.0), Signal("s")])
    sim.add_engine("fast", [Step("work", 2.0), Signal("s")])
    waiter = sim.add_engine("waiter", [Wait("s", 3)])
    sim.run()
    assert waiter.clock == 10.0  # the initial unit (0), fast's (2) and slow's (10)


def test_not_before_delays_a_step():
    sim = Simulator(start=5.0, record=True)
    sim.add_engine("e", [Step("a", 1.0, not_before=3.0), Step("b", 1.0, not_before=9.0)])
    sim.run()
    assert [(ev.start, ev.end) for ev in sim.events] == [(5.0, 6.0), (9.0, 10.0)]


def test_step_cap():
    sim = Simulator(max_steps=3)
    sim.add_engine("e", [Step("s")] * 5)
    with pytest.raises(StepCapExceeded):
        sim.run()


def test_lock_step_and_eager_agree_on_timing_not_on_occupancy():
    eager = pipeline(6, load=1.0, store=2.0, depth=3).run(eager=True)
    lock = pipeline(6, load=1.0, store=2.0, depth=3).run(eager=False)
    assert [e.clock for e in eager.engines] == [e.clock for e in lock.engines]
    assert eager.fifos["b"].peak == 3 and lock.fifos["b"].peak == 1


def test_counts_and_data_mode_agree():
    counts = pipeline(5, load=2.0, store=3.0, record=True).run()
    moved: list[tuple[str, int]] = []
    slots: dict[int, int] = {}
    tiles = iter(range(100, 200))

    def perform(engine, step, access):
        if step.key == "ld":
            slot = access.fill(0)
            slots[slot] = next(tiles)
        else:
            moved.append((engine.name, slots.pop(access.take(0))))
        return None  # the step's own cycles

    data = pipeline(5, load=2.0, store=3.0, record=True, perform=perform).run()
    assert [(e.start, e.end) for e in data.events] == [(e.start, e.end) for e in counts.events]
    assert [e.clock for e in data.engines] == [e.clock for e in counts.engines]
    assert data.fifos["b"].peak == counts.fifos["b"].peak
    assert moved == [("store", t) for t in range(100, 105)]  # in order, through the ring's slots


def test_data_mode_cycles_come_from_the_callback():
    sim = Simulator(perform=lambda engine, step, access: 7.0)
    engine = sim.add_engine("e", [Step("s", cycles=1.0), Step("s", cycles=1.0)])
    sim.run()
    assert engine.clock == 14.0


def test_loop_unrolls_nested_loops_lazily_and_again_on_each_iteration():
    a, b, c = Step("a"), Step("b"), Step("c")
    program = Loop(2, [a, Loop(3, [b]), Loop(0, [c]), c])
    assert [s.key for s in program] == ["a", "b", "b", "b", "c"] * 2
    assert list(program) == list(program)  # re-iterable
    sim = Simulator()
    sim.add_engine("e", Loop(1, [Loop(1000, [Step("x", 1.0)])]))
    assert sim.run().engines[0].clock == 1000.0
