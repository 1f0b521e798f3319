// The PTX of debug waits (mbarrier-compile --debug-waits NS): the first
// try_wait and its branch out, as without the option; %globaltimer read only
// on the slow path; past the bound, activemask elects the lowest lane, which
// reads the raw barrier word and calls vprintf with a global format string;
// then the grace spin and `trap`. A pipe's acquire, wait and tail
// (lower-pipes makes them mbarrier.wait) are bounded the same way.
// (--no-check-sync: the kernels are instruction-form tests, not protocols.)
// RUN: mbarrier-compile --no-check-sync --debug-waits 200000000 %s --emit ptx -o - | FileCheck %s
// The format strings, in the LLVM dialect (PTX spells them as bytes): the
// wait's own location, one per wait.
// RUN: mbarrier-compile --no-check-sync --debug-waits 200000000 %s --emit llvm -o - | FileCheck %s --check-prefix=FORMAT
// Off, the PTX has none of it:
// RUN: mbarrier-compile --no-check-sync %s --emit ptx -o - | FileCheck %s --check-prefix=OFF
// RUN: mbarrier-compile --no-check-sync --debug-waits 0 %s --emit ptx -o - | FileCheck %s --check-prefix=OFF
// OFF-NOT: globaltimer
// OFF-NOT: vprintf
// OFF-NOT: trap
// OFF-NOT: activemask
// ptxas accepts it:
// RUN: mbarrier-compile --no-check-sync --debug-waits 200000000 %s -o %t.cubin
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print('elf', d[:4] == b'\x7fELF', b'mbarrier.wait timed out at' in d)" %t.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: elf True True
// The option of the pipeline and of its stage 1 (what compile() runs):
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm{debug-waits=7 check-sync=false})" | FileCheck %s --check-prefix=STAGE
// STAGE-LABEL: gpu.func @one_wait(
// STAGE: nvvm.read.ptx.sreg.globaltimer
// STAGE: llvm.mlir.constant(7 : i64) : i64
// STAGE: gpu.printf "mbarrier.wait timed out at
// STAGE: llvm.intr.trap
// RUN: %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(mbarrier-to-ptx{debug-waits=7 check-sync=false})" | FileCheck %s --check-prefix=WHOLE
// WHOLE: gpu.binary @kernels
// WHOLE-SAME: %globaltimer
// WHOLE-SAME: vprintf
// WHOLE-SAME: trap;
// A bound that is not a whole number of nanoseconds is refused:
// RUN: not mbarrier-compile --debug-waits -5 %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: argument --debug-waits: -5 is not 0 (off) to 2^64 - 1 nanoseconds

// CHECK: .extern .func (.param .b32 func_retval0) vprintf
// CHECK: .global .align 1 .b8 printfFormat_{{[0-9]+}}[

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
    // CHECK: ld.volatile.shared.b64 {{%rd[0-9]+}}, [[[BAR]]];
    // CHECK: %cluster_ctarank;
    // CHECK: call.uni (retval0), vprintf, (param0, param1);
    // CHECK: setp.lt.u64 {{%p[0-9]+}}, {{%rd[0-9]+}}, 250000001;
    // CHECK: trap;
    gpu.func @one_wait(%phase: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      // FORMAT-DAG: llvm.mlir.global internal constant @printfFormat_{{[0-9]+}}("mbarrier.wait timed out at {{.*}}debug-waits-ptx.mlir:[[@LINE+1]]:7 (barrier group<1>[%lld] from {{.*}}debug-waits-ptx.mlir:[[@LINE-1]]:12, parity %u, waited %llu ns) cta %u (ctaid %u,%u,%u) warp %u; barrier word 0x%016llx (raw, layout opaque)\0A\00")
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      gpu.return
    }

    // A producer's acquire and tail and a consumer's wait: bounded loops
    // whose lines carry the pipe op's location (the tail's waits, one per
    // stage, share theirs: one report).
    // CHECK-LABEL: .entry pipe_waits(
    // CHECK-COUNT-3: call.uni (retval0), vprintf,
    // CHECK-NOT: vprintf
    // CHECK-LABEL: .entry last(
    gpu.func @pipe_waits(%producer: i1) kernel {
      %g = mbarrier.alloc : !mbarrier.group<4>
      %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma>
      scf.if %producer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
        // FORMAT-DAG: @printfFormat_{{[0-9]+}}("mbarrier.wait timed out at {{.*}}debug-waits-ptx.mlir:[[@LINE+1]]:24 (barrier group<4>[%lld] from {{.*}}debug-waits-ptx.mlir:[[@LINE-4]]:12,
        %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
        %zero = arith.constant 0 : i32
        mbarrier.pipe.commit %p[%slot], bytes %zero : !mbarrier.pipe<2, tma>
        // FORMAT-DAG: @printfFormat_{{[0-9]+}}("mbarrier.wait timed out at {{.*}}debug-waits-ptx.mlir:[[@LINE+1]]:9 (barrier group<4>[%lld]
        mbarrier.pipe.tail %p, %next : !mbarrier.pipe<2, tma>
      } else {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        // FORMAT-DAG: @printfFormat_{{[0-9]+}}("mbarrier.wait timed out at {{.*}}debug-waits-ptx.mlir:[[@LINE+1]]:24 (barrier group<4>[%lld]
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
