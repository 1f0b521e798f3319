"""The start and the end of a barrier kernel: the prologue (a leader
initializes every barrier group and pipeline, ``fence.mbarrier_init`` makes
the inits visible, one CTA or cluster barrier keeps every thread from
arriving before) and the epilogue (no CTA of a cluster exits while another
may still reach its shared memory). ``k.prologue(...)`` and
``k.epilogue()`` are these."""
from __future__ import annotations

import re
from typing import Mapping, Sequence

from mlir import ir

from ..locations import caller_location_text

from .barriers import MBarrier, fence_barrier_init, init_group
from .builder import Builder
from .control import if_then
from .pipeline import Pipeline
from .sequence import OrderedSequence
from .smem import SmemPool
from .threads import cluster_sync, is_thread, sync_threads
from .values import IntLike

__all__ = ["prologue", "epilogue", "initialized_barrier"]


def prologue(kernel: Builder, barriers: Mapping[MBarrier, IntLike] | None = None, *,
             pipes: Sequence[Pipeline] = (), sequences: Sequence[OrderedSequence] = (),
             leader: ir.Value | None = None) -> None:
    """The start of `kernel`, for several groups at once: the leader
    (default: thread rank 0) initializes every barrier of every group with
    its arrival count, every pipeline and every ordered sequence
    (its counts are its own), ``fence.mbarrier_init`` makes the
    inits visible, and one barrier (``barrier.cluster`` in a cluster
    kernel, ``bar.sync`` otherwise) keeps every thread from arriving
    before."""
    barriers = {} if barriers is None and (pipes or sequences) else barriers
    if not isinstance(barriers, Mapping) or not (barriers or pipes or sequences):
        raise TypeError("prologue() takes a dict {barrier group: arrival count} and/or "
                        "pipes=[Pipeline, ...], sequences=[OrderedSequence, ...]")
    for bar in barriers:
        if not isinstance(bar, MBarrier):
            raise TypeError(f"prologue() initializes barrier groups (MBarrier, TMABar, "
                            f"TCGen05Bar), got a {type(bar).__name__} key")
    for pipe in pipes:
        if not isinstance(pipe, Pipeline):
            raise TypeError(f"prologue(pipes=...) takes Pipelines, got a {type(pipe).__name__}")
    for seq in sequences:
        if not isinstance(seq, OrderedSequence):
            raise TypeError(f"prologue(sequences=...) takes OrderedSequences, got a "
                            f"{type(seq).__name__}")
    _check_not_used_yet([*barriers, *pipes, *sequences])
    with if_then(is_thread(kernel, 0) if leader is None else leader):
        for bar, count in barriers.items():
            init_group(bar, count)
        for pipe in pipes:
            pipe.init()
        for seq in sequences:
            seq.init()
    fence_barrier_init()
    if kernel.cluster:
        cluster_sync()
    else:
        sync_threads()


# Ops on a group that need no initialized barrier: its memory, views of it,
# its address, its init, and the start of a pipe's or a sequence's state.
_NO_INIT_NEEDED = {"mbarrier.alloc", "mbarrier.view", "mbarrier.ptr", "mbarrier.init",
                   "mbarrier.pipe.create", "mbarrier.pipe.init", "mbarrier.pipe.start",
                   "mbarrier.pipe.stage", "mbarrier.pipe.full_ptr", "mbarrier.seq.create",
                   "mbarrier.seq.init", "mbarrier.seq.start"}
_LOC = re.compile(r'"([^"]+)":(\d+):(\d+)')


def _first_use(value: ir.Value) -> str | None:
    """``file:line:col`` of the first op (by line) built so far that uses
    `value`, a barrier group, pipe or sequence, as an initialized barrier
    (through remote views too); None if none has."""
    found, todo = [], [value]
    while todo:
        for use in todo.pop().uses:
            op = use.owner
            name = op.name
            if name == "mbarrier.remote_view":
                todo.extend(op.results)
            elif name.startswith("mbarrier.") and name not in _NO_INIT_NEEDED:
                match = _LOC.search(str(op.location))
                if match:
                    found.append((match[1], int(match[2]), int(match[3])))
    if not found:
        return None
    file, line, col = min(found)
    return f"{file}:{line}:{col}"


def _check_not_used_yet(groups) -> None:
    """A group the prologue initializes must not have been used before it:
    ops built before ``k.prologue()`` run before its inits, on barriers
    that are not initialized yet (undefined). A ``ValueError`` at the
    prologue's line, with a note at the first use."""
    for group in groups:
        use = _first_use(group.value)
        if use is not None:
            where = caller_location_text()
            raise ValueError(
                f"{where + ': ' if where else ''}error: k.prologue() initializes this "
                f"{type(group).__name__} after it is used: the ops built before the prologue "
                "run before its inits, on barriers not yet initialized; call k.prologue() "
                f"right after pool.commit(), before any barrier or pipe operation\n"
                f"{use}: note: first used here")


def epilogue(kernel: Builder) -> None:
    """The safe end of a cluster kernel: a final ``barrier.cluster``
    (arrive + wait by every thread), so that no CTA exits, and its shared
    memory goes away, while another CTA may still arrive on its barriers or
    access its buffers. Emits nothing in a kernel without a cluster (no
    other CTA can reach its shared memory)."""
    if kernel.cluster:
        cluster_sync()


def initialized_barrier(kernel: Builder, *, count: IntLike, depth: int = 1,
                        phase_offset: int = 0, cls: type[MBarrier] = MBarrier) -> MBarrier:
    """The prologue of a one-group barrier kernel in one call: a barrier
    group in a pool of its own, initialized with `count` by thread 0, the
    init made visible before anyone arrives (``kernel.prologue``)."""
    pool = SmemPool(kernel)
    bar = cls(pool, depth, phase_offset=phase_offset)
    pool.commit()
    prologue(kernel, {bar: count})
    return bar
