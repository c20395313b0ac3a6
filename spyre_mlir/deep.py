"""Run deeply recursive work (xDSL's parser, verifier and printer, the
interpreter's decoder) without `RecursionError` or a C stack overflow.

Each nested region costs a handful of Python frames in xDSL's recursive
descent, so a few thousand nested regions exceed Python's default limit of
1000 frames. `call_deep(fn, ...)` runs `fn` in a worker thread with a large
stack and a raised recursion limit, and returns its result or re-raises its
exception in the caller. Nested calls run inline. The worker runs in a copy
of the caller's context, so context variables (the diagnostics collector of
`spyre_mlir.diagnostics.collect`) reach it.

    module = call_deep(parse_module, text, name)
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STACK_BYTES = 512 * 1024 * 1024
"""Stack of the worker thread: virtual memory, committed only as it is used."""

RECURSION_LIMIT = 200_000
"""Python frames allowed in the worker thread (about 100 bytes of C stack
each in CPython 3.11's pure-Python calls, a few KiB through C calls)."""

_state = threading.local()


def call_deep(fn: Callable[..., T], *args, **kwargs) -> T:
    """`fn(*args, **kwargs)` on a deep stack (inline when already on one)."""
    if getattr(_state, "deep", False):
        return fn(*args, **kwargs)
    outcome: dict[str, object] = {}

    def work() -> None:
        _state.deep = True
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            outcome["error"] = exc

    old_stack = threading.stack_size()
    old_limit = sys.getrecursionlimit()
    try:
        threading.stack_size(STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        context = contextvars.copy_context()
        worker = threading.Thread(target=context.run, args=(work,), name="spyre-mlir-deep")
        worker.start()
    finally:
        threading.stack_size(old_stack)
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
