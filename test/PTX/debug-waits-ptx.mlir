// The PTX of debug waits (mbarrier-compile --debug-waits NS): the first
// try_wait and its branch out, as without the option; %globaltimer read only
// on the slow path; past the bound, activemask elects the lowest lane, which
// takes a record of the buffer whose address @mbarrier_debug_waits holds and
// writes its fields there (st.volatile.global, at debug_waits:: offsets past
// the 64-byte header), then the barrier's state (mbarrier.arrive of count
// 0); then the grace spin and `trap`. No call anywhere (a vprintf would make
// ptxas serialize wgmma). A pipe's acquire, wait and tail (lower-pipes makes
// them mbarrier.wait) are bounded the same way.
// (--no-check-sync: the kernels are instruction-form tests, not protocols.)
// RUN: mbarrier-compile --no-check-sync --debug-waits 200000000 %s --emit ptx -o - | FileCheck %s --implicit-check-not=vprintf --implicit-check-not=call.uni
// The site table, in the LLVM dialect (PTX spells it as bytes): the waits'
// own locations, one line each.
// RUN: mbarrier-compile --no-check-sync --debug-waits 200000000 %s --emit llvm -o - | FileCheck %s --check-prefix=SITES
// Off, the PTX has none of it:
// RUN: mbarrier-compile --no-check-sync %s --emit ptx -o - | FileCheck %s --check-prefix=OFF
// RUN: mbarrier-compile --no-check-sync --debug-waits 0 %s --emit ptx -o - | FileCheck %s --check-prefix=OFF
// OFF-NOT: globaltimer
// OFF-NOT: mbarrier_debug_wait
// OFF-NOT: trap
// OFF-NOT: activemask
// ptxas accepts it, and the cubin has the two globals the runtime asks
// cuModuleGetGlobal for:
// RUN: mbarrier-compile --no-check-sync --debug-waits 200000000 %s -o %t.cubin
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print('elf', d[:4] == b'\x7fELF', b'mbarrier_debug_waits\0' in d, b'mbarrier_debug_wait_sites\0' in d)" %t.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: elf True True True
// The option of the pipeline and of its stage 1 (what compile() runs):
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm{debug-waits=7 check-sync=false})" | FileCheck %s --check-prefix=STAGE
// STAGE: llvm.mlir.global external @mbarrier_debug_waits(
// STAGE-LABEL: gpu.func @one_wait(
// STAGE: nvvm.read.ptx.sreg.globaltimer
// STAGE: llvm.mlir.constant(7 : i64) : i64
// STAGE: llvm.mlir.addressof @mbarrier_debug_waits
// STAGE: llvm.intr.trap
// RUN: %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(mbarrier-to-ptx{debug-waits=7 check-sync=false})" | FileCheck %s --check-prefix=WHOLE
// WHOLE: gpu.binary @kernels
// WHOLE-SAME: %globaltimer
// WHOLE-SAME: mbarrier_debug_waits
// WHOLE-SAME: trap;
// A bound that is not a whole number of nanoseconds is refused:
// RUN: not mbarrier-compile --debug-waits -5 %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: argument --debug-waits: -5 is not 0 (off) to 2^64 - 1 nanoseconds

// CHECK: .visible .global .align 1 .b8 mbarrier_debug_wait_sites[{{[0-9]+}}] = {
// CHECK: .visible .global .align 8 .b8 mbarrier_debug_waits[16];
// SITES: llvm.mlir.global external constant @mbarrier_debug_wait_sites("{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+52]]:7\09group<1>\09{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+51]]:12\0A{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+68]]:24\09group<4>\09{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+64]]:12\0A{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+71]]:9\09group<4>\09{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+64]]:12\0A{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+74]]:24\09group<4>\09{{[^"]*}}debug-waits-ptx.mlir:[[@LINE+64]]:12\0A\00")

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: .entry one_wait(
    // CHECK-DAG: ld.param.b32 [[PH:%r[0-9]+]], [one_wait_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK-NOT: globaltimer
    // CHECK: mbarrier.try_wait.parity.shared.b64 [[P:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK-NEXT: @[[P]] bra [[DONE:\$L__BB[0-9_]+]];
    // CHECK: [[DONE]]:
    // CHECK-NEXT: ret;
    // CHECK: mov.u64 [[START:%rd[0-9]+]], %globaltimer;
    // CHECK-NEXT: [[LOOP:\$L__BB[0-9_]+]]:
    // CHECK-NEXT: mbarrier.try_wait.parity.shared.b64 [[Q:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK-NEXT: @[[Q]] bra [[DONE]];
    // CHECK-NEXT: mov.u64 [[NOW:%rd[0-9]+]], %globaltimer;
    // CHECK-NEXT: sub.s64 [[WAITED:%rd[0-9]+]], [[NOW]], [[START]];
    // CHECK-NEXT: setp.lt.u64 [[WITHIN:%p[0-9]+]], [[WAITED]], 200000001;
    // CHECK-NEXT: @[[WITHIN]] bra [[LOOP]];
    // CHECK: activemask.b32
    // CHECK: %lanemask_lt;
    // CHECK: ld.volatile.global.b64 [[BUF:%rd[0-9]+]], [mbarrier_debug_waits];
    // CHECK-NEXT: atom.global.add.u64 [[SLOT:%rd[0-9]+]], [mbarrier_debug_waits+8], 1;
    // CHECK-NEXT: setp.eq.b64 {{%p[0-9]+}}, [[BUF]], 0;
    // CHECK: setp.gt.u64 {{%p[0-9]+}}, [[SLOT]], 63;
    // CHECK: shl.b64 [[SPAN:%rd[0-9]+]], [[SLOT]], 6;
    // CHECK-NEXT: add.s64 [[REC:%rd[0-9]+]], [[BUF]], [[SPAN]];
    // The record past the 64-byte header: parity +4, index +8, waited +16,
    // rank +24, warp +28, ctaid +32/+36/+40, the site (1 + site 0) at +0.
    // CHECK-NEXT: st.volatile.global.b32 [[[REC]]+68], [[PH]];
    // CHECK-NEXT: st.volatile.global.b64 [[[REC]]+72], 0;
    // CHECK-NEXT: st.volatile.global.b64 [[[REC]]+80], [[WAITED]];
    // CHECK: %cluster_ctarank;
    // CHECK-NEXT: st.volatile.global.b32 [[[REC]]+88],
    // CHECK: st.volatile.global.b32 [[[REC]]+92],
    // CHECK: st.volatile.global.b32 [[[REC]]+96],
    // CHECK: st.volatile.global.b32 [[[REC]]+100],
    // CHECK: st.volatile.global.b32 [[[REC]]+104],
    // CHECK-NEXT: st.volatile.global.b32 [[[REC]]+64], 1;
    // CHECK: fence.sc.sys;
    // CHECK: mbarrier.arrive.shared::cta.b64 [[STATE:%rd[0-9]+]], [[[BAR]]], {{%r[0-9]+}};
    // CHECK: st.volatile.global.b64 [[[REC]]+112], [[STATE]];
    // CHECK-NEXT: st.volatile.global.b32 [[[REC]]+108], 1;
    // CHECK: fence.sc.sys;
    // Every record taken: the header's mark.
    // CHECK: st.volatile.global.b32 [[[BUF]]], 1;
    // CHECK: setp.lt.u64 {{%p[0-9]+}}, {{%rd[0-9]+}}, 250000001;
    // CHECK: trap;
    gpu.func @one_wait(%phase: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      gpu.return
    }

    // A producer's acquire and tail and a consumer's wait: bounded loops
    // whose sites carry the pipe op's location (the tail's waits, one per
    // stage, are one wait in a loop: one site).
    // CHECK-LABEL: .entry pipe_waits(
    // CHECK-COUNT-3: atom.global.add.u64 {{%rd[0-9]+}}, [mbarrier_debug_waits+8], 1;
    // CHECK-NOT: atom.global.add
    // CHECK-LABEL: .entry last(
    gpu.func @pipe_waits(%producer: i1) kernel {
      %g = mbarrier.alloc : !mbarrier.group<4>
      %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma>
      scf.if %producer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
        %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
        %zero = arith.constant 0 : i32
        mbarrier.pipe.commit %p[%slot], bytes %zero : !mbarrier.pipe<2, tma>
        mbarrier.pipe.tail %p, %next : !mbarrier.pipe<2, tma>
      } else {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, tma>
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, tma>
      }
      gpu.return
    }

    gpu.func @last() kernel {
      gpu.return
    }
  }
}
