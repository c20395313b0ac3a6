"""spyre_mlir.analysis.allocation: first-fit placement of buffers (no IR)."""

from __future__ import annotations

from spyre_mlir.analysis.allocation import Slot, align_up, allocate, first_fit, overlaps


def test_align_up():
    assert [align_up(n, 128) for n in (0, 1, 127, 128, 129)] == [0, 128, 128, 128, 256]


def test_first_fit_takes_the_lowest_gap_that_holds_the_size():
    assert first_fit(100, [], 128) == 0
    assert first_fit(100, [(0, 100)], 128) == 128  # past the range, aligned
    assert first_fit(100, [(0, 100), (512, 64)], 128) == 128  # the gap before 512 holds it
    assert first_fit(400, [(0, 100), (512, 64)], 128) == 640  # it does not: past both
    assert first_fit(100, [(512, 64), (0, 100)], 128) == 128  # placed ranges in any order


def test_first_fit_starts_at_the_base():
    assert first_fit(64, [], 128, base=256) == 256
    assert first_fit(64, [(256, 10)], 128, base=256) == 384


def test_overlaps_is_inclusive():
    assert overlaps(Slot(1, 0, 2), Slot(1, 2, 3))
    assert not overlaps(Slot(1, 0, 1), Slot(1, 2, 3))


def test_allocate_shares_bytes_between_slots_never_live_together():
    slots = [Slot(4096, 0, 3), Slot(1000, 1, 2), Slot(4096, 4, 5)]
    done = allocate(slots, 128)
    assert [s.offset for s in slots] == [0, 4096, 0]
    assert done.peak == 5096 and not done.overflow


def test_allocate_with_a_conflict_rule_and_a_capacity():
    slots = [Slot(100), Slot(100), Slot(100)]
    done = allocate(slots, 64, capacity=250, conflicts=lambda a, b: True)
    assert [s.offset for s in slots] == [0, 128, None]  # the third would end at 356 > 250
    assert done.overflow == [(slots[2], 256)]
    assert done.peak == 228


def test_allocate_from_a_base_reports_no_peak_without_slots():
    assert allocate([], 128, base=512).peak == 0
    slot = Slot(10)
    assert allocate([slot], 128, base=512).peak == 522 and slot.offset == 512
