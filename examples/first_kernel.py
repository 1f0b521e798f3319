"""A first program: a two-CTA cluster kernel in which CTA 0 signals CTA 1's
barrier through a remote view (the first remote arrival).

    python examples/first_kernel.py [-o OUT_DIR] [--run]

Writes signal_peer.ptx and signal_peer.cubin and prints the barrier
instructions of the PTX: the remote arrival is `mapa.shared::cluster` +
`mbarrier.arrive...shared::cluster.b64`, never the local
`mbarrier.arrive.shared.b64` on a mapped address. With --run (a GPU with
clusters, sm_90+), launches it and checks that CTA 1 saw the arrival.
"""
import argparse
import os

import numpy as np

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import Kernel, MBarrier, if_then


def build() -> Kernel:
    """signal_peer(out): out[0] = 1, written by CTA 1 after CTA 0's arrival."""
    with Kernel("signal_peer", block=32, cluster=2, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()                  # this CTA's shared memory
        ready = MBarrier(pool, depth=1)       # one barrier, owned by each CTA
        pool.commit()
        k.prologue({ready: 1})                # thread 0 inits (1 arrival per phase),
                                              # fence_init + cluster barrier publish it
        rank = k.cluster_rank()
        with if_then((rank == 0) & k.is_thread(0)):
            # CTA 1's barrier, seen from CTA 0: the arrival is the cluster form.
            ready.remote_view(1).arrive(0)
        with if_then(rank == 1):
            ready.wait(0, 0)                  # CTA 1 waits on its own barrier (phase 0)
            with if_then(k.is_thread(0)):
                k.store(rank, k.param("out"), 0)
        k.epilogue()                          # no CTA exits while its peer may reach it
    return k


def case() -> manifest.Case:
    """The kernel with its data check, for the GPU suite."""
    return manifest.Case(build(), [manifest.buffer("out", fill=-1, shape=[1])],
                         {"out": np.array([1], np.int32)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it and check the result")
    args = parser.parse_args()
    compiled = build().compile(chip="sm_90")
    compiled.write(args.out_dir, "signal_peer")
    print("barrier instructions in signal_peer.ptx:")
    for line in compiled.ptx.splitlines():
        if "mbarrier" in line or "mapa" in line:
            print("   ", line.strip())
    print(f"wrote signal_peer.ptx and signal_peer.cubin ({len(compiled.cubin)} bytes) "
          f"to {os.path.abspath(args.out_dir)}")
    if args.run:
        out = np.full(1, -1, np.int32)
        compiled.launch(args=[out])
        print("out =", out, "(expected [1])")
        assert out[0] == 1


if __name__ == "__main__":
    main()
