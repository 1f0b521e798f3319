"""A first program: a two-CTA cluster kernel in which CTA 0 signals CTA 1's
barrier through a remote view, compiled to PTX and a cubin.

    python examples/first_kernel.py [-o OUT_DIR]

Prints the barrier instructions of the PTX: the remote arrival is
`mapa.shared::cluster` + `mbarrier.arrive...shared::cluster.b64`, never the
local `mbarrier.arrive.shared.b64` on a mapped address.
"""
import argparse
import os

from mlir.dialects import arith

from mbarrier_dialect.dialects.mbarrier import Scope
from mbarrier_dialect.lang import Kernel, MBarrier, if_then


def build() -> Kernel:
    with Kernel("signal_peer", block=32, cluster=2, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()                  # this CTA's shared memory
        ready = MBarrier(pool, depth=1)       # one barrier, owned by each CTA
        pool.commit()
        ready.init(count=1)                         # thread 0 initializes it...
        k.fence_barrier_init()                # ...and makes the init visible
        k.cluster_sync()                      # to the cluster before anyone arrives

        rank = k.cluster_rank()
        is_sender = arith.CmpIOp(arith.CmpIPredicate.eq, rank, arith.ConstantOp(rank.type, 0)).result
        with if_then(arith.AndIOp(is_sender, k.is_thread(0)).result):
            # CTA 1's barrier, seen from CTA 0: arrivals use the cluster form.
            ready.remote_view(1).arrive(0)
        with if_then(arith.XOrIOp(is_sender, arith.ConstantOp(is_sender.type, 1)).result):
            ready.wait(0, 0, scope=Scope.cluster)   # CTA 1 waits on its own barrier
            k.store(rank, k.param("out"), 0)
        k.cluster_sync()
    return k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--out-dir", default=".")
    args = parser.parse_args()
    kernel = build()
    compiled = kernel.compile(chip="sm_90")
    os.makedirs(args.out_dir, exist_ok=True)
    for ext, data in (("ptx", compiled.ptx.encode()), ("cubin", compiled.cubin)):
        with open(os.path.join(args.out_dir, f"signal_peer.{ext}"), "wb") as f:
            f.write(data)
    print("barrier instructions in signal_peer.ptx:")
    for line in compiled.ptx.splitlines():
        if "mbarrier" in line or "mapa" in line:
            print("   ", line.strip())
    print(f"wrote signal_peer.ptx and signal_peer.cubin ({len(compiled.cubin)} bytes) "
          f"to {os.path.abspath(args.out_dir)}")


if __name__ == "__main__":
    main()
