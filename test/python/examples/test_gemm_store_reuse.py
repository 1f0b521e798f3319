"""The TMA-store epilogue's staging buffers across tiles (examples/
gemm_parts/epilogue.py, ``reads_left``): a persistent warpgroup stores each
tile in 64-column chunks through STORE_DEPTH shared buffers, chunk j in
buffer j % STORE_DEPTH, and a buffer may be written again only once the TMA
store that last read it has read it (``cp.async.bulk.wait_group.read N``:
at most N of this thread's bulk groups still reading). With an odd chunk
count (128 x 192, 128 x 224, 64 x 64 tiles) a tile's chunk 0 reuses the
buffer of the previous tile's last chunk, the most recent store: waiting
for "all but one" left it reading while chunk 0 overwrote it (H200, the
exact case p1_192_ts 520 x 776 x 136 with 4 CTAs walking 15 tiles each:
1054 elements of C wrong, passing under compute-sanitizer's serialization;
BENCHMARKS.md run 4). The wait is now the one the reuse needs."""
import re

import pytest

from examples import gemm
from bench.gemm import build as bench_build
from examples.gemm_parts import schedule
from examples.gemm_parts.epilogue import STORE_DEPTH, reads_left
from test_gemm import compiled  # build + compile, a checker warning fails


def overwrites_a_buffer_being_read(chunks: int, tiles: int, left) -> bool:
    """Simulate one warpgroup's bulk groups over `tiles` tiles of `chunks`
    chunks with the wait rule `left(j, chunks)`: before chunk j is written
    its thread waits until at most `left` groups are in flight (the oldest
    complete first); True if a group still in flight reads the buffer
    being written."""
    in_flight = []                    # buffers the outstanding stores read, oldest first
    for _ in range(tiles):
        for j in range(chunks):
            buf = j % STORE_DEPTH
            keep = left(j, chunks)
            in_flight = in_flight[len(in_flight) - keep:] if keep else []
            if buf in in_flight:
                return True
            in_flight.append(buf)
    return False


@pytest.mark.parametrize("chunks", [1, 2, 3, 4])
def test_no_chunk_overwrites_the_buffer_a_store_still_reads(chunks):
    assert not overwrites_a_buffer_being_read(chunks, 5, reads_left)


def test_the_former_wait_raced_on_odd_chunk_counts():
    """The rule before run 4 (always STORE_DEPTH - 1) overwrote the buffer of
    the previous tile's last store on 1 and 3 chunks, not on 2 and 4: the
    simulation catches it."""
    former = lambda j, chunks: STORE_DEPTH - 1  # noqa: E731
    assert [overwrites_a_buffer_being_read(n, 3, former) for n in (1, 2, 3, 4)] == \
        [True, False, True, False]


def test_the_wait_keeps_the_overlap_where_it_can():
    """Only the chunks that reuse the previous store's buffer wait for every
    read: an even count keeps one store in flight at every chunk."""
    assert [reads_left(j, 4) for j in range(4)] == [1, 1, 1, 1]
    assert [reads_left(j, 3) for j in range(3)] == [0, 1, 1]
    assert [reads_left(j, 1) for j in range(1)] == [0]


def _reads(ptx):
    return [int(n) for n in re.findall(r"cp\.async\.bulk\.wait_group\.read\s+(\d+)", ptx)]


@pytest.mark.parametrize("name, waits", [
    # per chunk, then the drain before the exit
    ("p1_192_ts", [0, 1, 1, 0]), ("p1_224_ts", [0, 1, 1, 0]),
    ("p1_256_ts", [1, 1, 1, 1, 0]), ("p1_144_ts", [1, 1, 0]), ("pp_64x64_ts", [0, 0])])
def test_the_schedule_tiles_wait_for_the_reuse(name, waits):
    c = compiled(**schedule.CONFIG_KWARGS[name])
    assert _reads(c.ptx) == waits


def test_the_exact_manifest_has_the_case_that_showed_the_race():
    """Three K blocks a tile, 15 tiles per CTA: the epilogues follow each
    other quickly; and the other odd-chunk tiles on short K."""
    exact = {(name, M, N, K) for name, M, N, K in bench_build.EXACT}
    assert {("p1_192_ts", 520, 776, 136), ("p1_224_ts", 264, 1000, 72),
            ("pp_64x64_ts", 130, 261, 200)} <= exact
    for name in ("p1_192_ts", "p1_224_ts", "pp_64x64_ts"):
        cfg = gemm.Config(**schedule.CONFIG_KWARGS[name])
        assert (cfg.bn // 64) % 2 == 1, name
