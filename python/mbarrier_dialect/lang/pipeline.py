"""Pipeline: a D-stage producer/consumer ring in the shape CuTe DSL authors
know, building the ``mbarrier.pipe.*`` ops (docs/pipelines.md)::

    pipe = Pipeline(pool, depth=4, kind="tma", consumers=1, multicast="row")
    tiles = pool.alloc((4, 1024), "f32", align=128)
    pool.commit()
    k.prologue(pipes=[pipe])                      # pipe.init, fence, barrier

    producer = pipe.producer()                    # its state starts at stage 0
    for i in lang.range(n, carry=[producer]):     # the state is carried
        slot = producer.acquire()                 # waits until the stage is empty
        slot.cp_async_bulk_tensor(tiles, tmap, [i * 1024], multicast="row")
        slot.commit(bytes=4096)                   # expect_tx on the full barrier
    producer.tail()                               # every stage released

    consumer = pipe.consumer()
    for i in lang.range(n, carry=[consumer]):
        slot = consumer.wait()                    # waits until the stage is full
        ... tiles at slot.index ...
        slot.release(pred=leader)                 # to every CTA that fills it

The counts, phases, multicast masks and release targets are the IR's:
nobody writes a parity. The rules (a slot committed or released exactly
once, in the block that took it; bytes that match the copies; roles) are the
C++ verifier's, reported at the caller's line.
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir.dialects import llvm

from ..dialects import mbarrier
from . import values as V
from .barriers import MBarrier, _tensor_map_ptr
from .builder import check_same_kernel, make_type, verified
from .control import Carried
from .smem import SmemBuffer, SmemPool, byte_offset, element_ptr
from .values import DType, IntLike, Value

__all__ = ["Pipeline", "Producer", "Consumer", "ProducerSlot", "ConsumerSlot", "StageBuffer"]

_KINDS = ("tma", "arrive", "tcgen05")
_MULTICAST = ("none", "row", "col", "rowcol")


class StageBuffer:
    """Stage buffers at a shared-memory address that no pool lays out, for
    example the launch's dynamic shared memory (``extern .shared``, the only
    way past the 48 KiB of a static allocation): `shape` elements of
    `dtype` at `ptr` (an ``!llvm.ptr<3>``), the stage first, as for a pool
    buffer. ``slot.stage_ptr``, ``slot.cp_async_bulk`` and
    ``slot.cp_async_bulk_tensor`` take it where they take an
    :class:`SmemBuffer`; aligning `ptr` (a TMA swizzle wants 128 to 1024
    bytes) and keeping the buffers apart is the caller's part::

        a_stages = StageBuffer(dyn_ptr, (depth, 128, 64), "bf16")
        slot.cp_async_bulk_tensor(a_stages, tmap, [row, col], box_bytes=16384)
    """

    def __init__(self, ptr: ir.Value, shape: Sequence[int], dtype: DType):
        if not isinstance(ptr, ir.Value) or str(ptr.type) != "!llvm.ptr<3>":
            raise TypeError(f"a stage buffer's ptr is an !llvm.ptr<3> value, got "
                            f"{getattr(ptr, 'type', type(ptr).__name__)}")
        self.shape = tuple(_count(s, "a buffer extent") for s in shape)
        if not self.shape or any(s < 1 for s in self.shape):
            raise ValueError(f"a buffer shape has positive extents, got {self.shape}")
        self.dtype: ir.Type = V.dtype(dtype)
        self.nbytes = V.dtype_nbytes(self.dtype)
        for s in self.shape:
            self.nbytes *= s
        self.ptr = ptr


def _name(value, allowed: Sequence[str], what: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{what} is one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is an int, got {type(value).__name__}")
    return value


class Pipeline:
    """A ring of `depth` stages with a full and an empty barrier each
    (``!mbarrier.pipe``), taken from a shared-memory pool.

    `kind`: ``"tma"`` (copies complete the full barrier with their bytes),
    ``"arrive"`` or ``"tcgen05"``. `producers`: arrivals on a full barrier
    per phase; `consumers`: releases per phase from each consumer CTA.
    `multicast` (``"row"``, ``"col"``, ``"rowcol"``): which CTAs of the
    kernel's 2-D cluster (`cluster`, default the kernel's) load into this
    CTA's stages; the empty barriers count their releases and the consumers
    release to each of them."""

    def __init__(self, pool: SmemPool, depth: int, *, kind: str = "tma", producers: int = 1,
                 consumers: int = 1, multicast: str = "none",
                 cluster: Sequence[int] | None = None):
        depth = _count(depth, "depth")
        kind = _name(kind, _KINDS, "kind")
        multicast = _name(multicast, _MULTICAST, "multicast")
        producers = _count(producers, "producers")
        consumers = _count(consumers, "consumers")
        kernel = pool.kernel
        if cluster is None:
            shape = kernel.cluster or (1, 1, 1)
            if multicast != "none" and shape[2] != 1:
                raise ValueError(f"a multicast pipeline lives in a 2-D cluster, the kernel's is "
                                 f"{tuple(shape)}")
            cluster = shape[:2] if multicast != "none" else (1, 1)
        cx, cy = (_count(c, "a cluster dimension") for c in cluster)
        text = (f"!mbarrier.pipe<{depth}, {kind}, producers = {producers}, "
                f"consumers = {consumers}, cluster = [{cx}, {cy}], multicast = {multicast}>")
        with kernel.context:
            self.type = make_type(lambda: ir.Type.parse(text))
        self.depth, self.kind, self.multicast = depth, kind, multicast
        self.producers, self.consumers, self.cluster = producers, consumers, (cx, cy)
        self._barriers = MBarrier(pool, 2 * depth)
        self._value: ir.Value | None = None
        pool.on_commit(self._create)

    def _create(self) -> None:
        self._value = verified(mbarrier.PipeCreateOp(self.type, self._barriers.value)).result

    @property
    def value(self) -> ir.Value:
        """The ``!mbarrier.pipe`` SSA value."""
        check_same_kernel(self._barriers._kernel, "this Pipeline")
        if self._value is None:
            raise ValueError("the pipeline's shared-memory pool is not committed yet: call "
                             "pool.commit()")
        return self._value

    def init(self) -> None:
        """``mbarrier.pipe.init`` by the calling thread (``k.prologue(pipes=
        [...])`` guards it, fences it and synchronizes)."""
        verified(mbarrier.PipeInitOp(self.value))

    def producer(self) -> "Producer":
        """The producer side, at its first state."""
        return Producer(self, mbarrier.PipeStartOp(_state_type("producer")).result)

    def consumer(self) -> "Consumer":
        """The consumer side, at its first state."""
        return Consumer(self, mbarrier.PipeStartOp(_state_type("consumer")).result)


def _state_type(role: str) -> ir.Type:
    return ir.Type.parse(f"!mbarrier.pipe_state<{role}>")


class _Side(Carried):
    """One side of a pipeline: its state (``!mbarrier.pipe_state``), which
    ``acquire``/``wait`` advance. Carry it through loops:
    ``lang.range(n, carry=[side])``."""

    def __init__(self, pipe: Pipeline, state: ir.Value):
        self.pipe = pipe
        self.state = state

    # Carried (lang.range / for_range): the side is its state.
    def _carry_value(self) -> ir.Value:
        return self.state

    def _bind(self, value: ir.Value) -> None:
        self.state = value

    def advance(self, count: IntLike) -> None:
        """Skip `count` slots (``mbarrier.pipe.advance``)."""
        self.state = mbarrier.PipeAdvanceOp(self.state, V.as_i32(count)).result

    def _enter(self, op_class, ready):
        # An i1 value or None: a Python bool would decide the emitted code.
        ready = None if ready is None else V.as_i1(ready)
        # Not verified on its own: the slot's commit/release comes later;
        # the kernel's verification at its end checks the pair.
        op = op_class(self.pipe.value, self.state, ready=ready)
        self.state = op.next
        return op.slot


class Producer(_Side):
    """The producer side: ``acquire()`` -> :class:`ProducerSlot` ->
    ``commit()``; ``tail()`` before the CTA exits."""

    def try_acquire(self) -> Value:
        """One test of whether the next stage is empty (i1); pass it to
        ``acquire(ready=...)``."""
        return V.wrap(verified(mbarrier.PipeTryAcquireOp(self.pipe.value, self.state)).result)

    def acquire(self, *, ready: ir.Value | None = None) -> "ProducerSlot":
        """Wait until the next stage is empty and take it (skipped where
        `ready`, from ``try_acquire``, is true); advances the state."""
        return ProducerSlot(self.pipe, self._enter(mbarrier.PipeAcquireOp, ready))

    def tail(self) -> None:
        """Wait until every stage has been released by every consumer that
        may arrive on this CTA (``mbarrier.pipe.tail``), so that none does
        after the CTA exits."""
        verified(mbarrier.PipeTailOp(self.pipe.value, self.state))


class Consumer(_Side):
    """The consumer side: ``wait()`` -> :class:`ConsumerSlot` -> ``release()``."""

    def try_wait(self) -> Value:
        """One test of whether the next stage is full (i1)."""
        return V.wrap(verified(mbarrier.PipeTryWaitOp(self.pipe.value, self.state)).result)

    def wait(self, *, ready: ir.Value | None = None) -> "ConsumerSlot":
        """Wait until the next stage is full and take it; advances the state."""
        return ConsumerSlot(self.pipe, self._enter(mbarrier.PipeWaitOp, ready))


class _Slot(Carried):
    def __init__(self, pipe: Pipeline, slot: ir.Value):
        self.pipe = pipe
        self.value = slot

    # Carried (lang.range / for_range): a slot may be carried
    # through a loop once (released in the next trip, e.g. after the next
    # wait, and the last one after the loop), as the verifier allows.
    def _carry_value(self) -> ir.Value:
        return self.value

    def _bind(self, value: ir.Value) -> None:
        self.value = value

    @property
    def index(self) -> Value:
        """The stage (``index``), to address the stage's data. Each read
        builds its own ``mbarrier.pipe.stage`` where it is read (no cache),
        so that a read after ``commit()``/``release()`` is the verifier's
        use-after error whatever was read before (the lowering folds the
        ops into the slot's index)."""
        return V.wrap(mbarrier.PipeStageOp(self.value).result)

    def stage_ptr(self, buffer: SmemBuffer | StageBuffer) -> ir.Value:
        """The ``!llvm.ptr<3>`` of this stage's part of `buffer`, whose
        first dimension is the stage (``pool.alloc((depth, ...), dtype)``
        or a :class:`StageBuffer`)."""
        if buffer.shape[0] != self.pipe.depth:
            raise ValueError(f"the buffer's first dimension is the stage ({self.pipe.depth}), "
                             f"its shape is {buffer.shape}")
        stage_bytes = buffer.nbytes // self.pipe.depth
        offset = V.as_i32(self.index) * stage_bytes
        i8 = ir.IntegerType.get_signless(8)
        return llvm.GEPOp(buffer.ptr.type, buffer.ptr, [offset], [-2**31], i8,
                          llvm.GEPNoWrapFlags.none).result


class ProducerSlot(_Slot):
    """A stage the producer holds: fill it, then ``commit()`` it once."""

    def full_ptr(self) -> ir.Value:
        """The full barrier's address (``!llvm.ptr<3>``), for upstream ops
        that complete on it."""
        return verified(mbarrier.PipeFullPtrOp(self.pipe.value, self.value)).result

    def cp_async_bulk(self, buffer: SmemBuffer | StageBuffer, src: ir.Value, *, src_index: IntLike = 0,
                      nbytes: int | None = None) -> None:
        """``cp.async.bulk`` of `nbytes` (default: one stage of `buffer`)
        from element `src_index` of `src` into this stage of `buffer`."""
        nbytes = buffer.nbytes // self.pipe.depth if nbytes is None else nbytes
        V._refuse_bool(nbytes, "nbytes")
        source = element_ptr(src, src_index, buffer.dtype)
        verified(mbarrier.PipeCpAsyncBulkOp(self.pipe.value, self.value, self.stage_ptr(buffer),
                                            source, V.as_i32(nbytes)))

    def cp_async_bulk_tensor(self, buffer: SmemBuffer | StageBuffer, tensor_map: ir.Value,
                             coords: Sequence[IntLike], *, box_bytes: int,
                             multicast: str | None = None,
                             byte_offset_in_stage: IntLike = 0) -> None:
        """A TMA tensor copy of the box at `coords` (numpy order: outermost
        first) into this stage of `buffer` (at `byte_offset_in_stage`, an int
        or an integer value), completing on the full barrier. `box_bytes` is
        the box's size. ``multicast="row"``/``"col"``: the box lands at the
        same place in every CTA of this CTA's row/column (each CTA then loads
        its own part of the tile, at its own offset)."""
        if isinstance(box_bytes, bool) or not isinstance(box_bytes, int):
            raise TypeError(f"box_bytes is an int, got {type(box_bytes).__name__}")
        V._refuse_bool(byte_offset_in_stage, "byte_offset_in_stage")
        coords = [V.as_i32(c) for c in reversed(list(coords))]
        dst = self.stage_ptr(buffer)
        if isinstance(byte_offset_in_stage, int):
            if byte_offset_in_stage:
                dst = byte_offset(dst, byte_offset_in_stage)
        else:
            i8 = ir.IntegerType.get_signless(8)
            dst = llvm.GEPOp(dst.type, dst, [V.as_i32(byte_offset_in_stage)], [-2**31], i8,
                             llvm.GEPNoWrapFlags.none).result
        attrs = {}
        if multicast is not None:
            _name(multicast, ("row", "col"), "multicast")
            attrs["multicast"] = ir.Attribute.parse(f"#mbarrier<multicast {multicast}>")
        verified(mbarrier.PipeCpAsyncBulkTensorOp(
            self.pipe.value, self.value, dst, _tensor_map_ptr(tensor_map), coords,
            box_bytes, **attrs))

    def commit(self, *, bytes: IntLike | None = None, pred: ir.Value | None = None) -> None:  # noqa: A002
        """Hand the stage to the consumers (``mbarrier.pipe.commit``): on a
        tma pipe `bytes` is what lands in this CTA's stage in this phase."""
        verified(mbarrier.PipeCommitOp(self.pipe.value, self.value,
                                       bytes=None if bytes is None else V.as_i32(bytes),
                                       pred=None if pred is None else V.as_i1(pred)))


class ConsumerSlot(_Slot):
    """A full stage a consumer holds: read it, then ``release()`` it once."""

    def release(self, *, pred: ir.Value | None = None) -> None:
        """Give the stage back to every CTA that fills it
        (``mbarrier.pipe.release``); one thread per consumer agent: `pred`
        selects it."""
        verified(mbarrier.PipeReleaseOp(self.pipe.value, self.value,
                                        pred=None if pred is None else V.as_i1(pred)))
