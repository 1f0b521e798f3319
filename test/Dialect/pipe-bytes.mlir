// The byte check counts copies per path (docs/pipelines.md, "Rules", 4): a
// copy in a loop of constant bounds counts once per trip, a copy in a branch
// on the paths through that branch. These stages are correct: they verify,
// compile to PTX with the checker on (silent), and land what the commit
// expects.
// RUN: mbarrier-opt %s -o /dev/null
// RUN: mbarrier-compile %s --emit ptx --module loop -o - 2>&1 | FileCheck %s --check-prefix=LOOP --implicit-check-not=warning --implicit-check-not=error
// RUN: mbarrier-compile %s --emit ptx --module branches -o - 2>&1 | FileCheck %s --check-prefix=BRANCHES --implicit-check-not=warning --implicit-check-not=error
// RUN: mbarrier-compile %s --emit ptx --module predicated -o - 2>&1 | FileCheck %s --check-prefix=PREDICATED --implicit-check-not=warning --implicit-check-not=error

module attributes {gpu.container_module} {
  // A reproducer: four 1024-byte boxes from a loop of
  // four trips, committed as 4096 bytes.
  // LOOP-LABEL: .entry copies_in_a_loop(
  // LOOP-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[FULL:%rd[0-9]+]]];
  // LOOP: mov.b32 [[BYTES:%r[0-9]+]], 4096;
  // LOOP: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [[[FULL]]], [[BYTES]];
  gpu.module @loop {
    gpu.func @copies_in_a_loop(%map: !llvm.ptr<1>, %y: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %producer = arith.cmpi eq, %tid, %c0 : index
      %consumer = arith.cmpi eq, %tid, %c32 : index
      %g = mbarrier.alloc : !mbarrier.group<4>
      %buf = llvm.mlir.addressof @tiles : !llvm.ptr<3>
      %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma>
      scf.if %producer {
        mbarrier.pipe.init %p : !mbarrier.pipe<2, tma>
      }
      nvvm.barrier0
      scf.if %producer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
        %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
        scf.for %i = %c0 to %c4 step %c1 {
          %x = arith.index_cast %i : index to i32
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %map[%x, %y], bytes 1024 : !mbarrier.pipe<2, tma>, !llvm.ptr<1>
        }
        %b = arith.constant 4096 : i32
        mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
        mbarrier.pipe.tail %p, %next : !mbarrier.pipe<2, tma>
      }
      scf.if %consumer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, tma>
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, tma>
      }
      gpu.return
    }
    llvm.mlir.global internal @tiles() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  }

  // A reproducer: one 4096-byte copy in each branch of an
  // scf.if; each path lands 4096 bytes.
  // (LLVM merges the two copies into one of a selected tensor map.)
  // BRANCHES-LABEL: .entry copies_in_branches(
  // BRANCHES: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[FULL:%rd[0-9]+]]];
  // BRANCHES: mov.b32 [[BYTES:%r[0-9]+]], 4096;
  // BRANCHES: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [[[FULL]]], [[BYTES]];
  gpu.module @branches {
    gpu.func @copies_in_branches(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: i1, %y: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %producer = arith.cmpi eq, %tid, %c0 : index
      %consumer = arith.cmpi eq, %tid, %c32 : index
      %g = mbarrier.alloc : !mbarrier.group<4>
      %buf = llvm.mlir.addressof @tiles : !llvm.ptr<3>
      %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma>
      scf.if %producer {
        mbarrier.pipe.init %p : !mbarrier.pipe<2, tma>
      }
      nvvm.barrier0
      scf.if %producer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
        %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
        scf.if %c {
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %a[%y, %y], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr<1>
        } else {
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %b[%y, %y], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr<1>
        }
        %n = arith.constant 4096 : i32
        mbarrier.pipe.commit %p[%slot], bytes %n : !mbarrier.pipe<2, tma>
        mbarrier.pipe.tail %p, %next : !mbarrier.pipe<2, tma>
      }
      scf.if %consumer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, tma>
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, tma>
      }
      gpu.return
    }
    llvm.mlir.global internal @tiles() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  }

  // Copies under the commit's own predicate (computed again, as lang does
  // for each `tid == 0`): on the paths where the commit runs they land 2048
  // bytes; and two branches on one condition agree.
  // PREDICATED-LABEL: .entry copy_under_the_commit_predicate(
  // PREDICATED: mov.b32 [[BYTES:%r[0-9]+]], 2048;
  // PREDICATED: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{%rd[0-9]+}}], [[BYTES]];
  gpu.module @predicated {
    gpu.func @copy_under_the_commit_predicate(%a: !llvm.ptr<1>, %c: i1, %y: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %lane0 = arith.cmpi eq, %tid, %c0 : index
      %producer = arith.cmpi ult, %tid, %c32 : index
      %consumer = arith.cmpi eq, %tid, %c32 : index
      %g = mbarrier.alloc : !mbarrier.group<4>
      %buf = llvm.mlir.addressof @tiles : !llvm.ptr<3>
      %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma>
      scf.if %lane0 {
        mbarrier.pipe.init %p : !mbarrier.pipe<2, tma>
      }
      nvvm.barrier0
      scf.if %producer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
        %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
        %leader = arith.cmpi eq, %tid, %c0 : index
        scf.if %leader {
          scf.if %c {
            mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %a[%y, %y], bytes 1024 : !mbarrier.pipe<2, tma>, !llvm.ptr<1>
          }
          scf.if %c {
            mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %a[%y, %y], bytes 1024 : !mbarrier.pipe<2, tma>, !llvm.ptr<1>
          } else {
            mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %a[%y, %y], bytes 2048 : !mbarrier.pipe<2, tma>, !llvm.ptr<1>
          }
        }
        %n = arith.constant 2048 : i32
        mbarrier.pipe.commit %p[%slot], bytes %n if %lane0 : !mbarrier.pipe<2, tma>
      }
      scf.if %consumer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, tma>
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, tma>
      }
      gpu.return
    }
    llvm.mlir.global internal @tiles() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  }
}

