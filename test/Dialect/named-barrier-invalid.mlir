// One case per named-barrier verifier rule of docs/design.md ("Named barriers"), each named after its rule.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'mbarrier.named_barrier' op attribute 'id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 15}}
mbarrier.named_barrier @id_above_15 id 16

// -----

// expected-error @+1 {{attribute 'id' failed to satisfy constraint}}
mbarrier.named_barrier @id_negative id -1

// -----

// expected-note @+1 {{the first declaration of id 2}}
mbarrier.named_barrier @first id 2
// expected-error @+1 {{has hardware id 2, which @first already has: two names of one barrier}}
mbarrier.named_barrier @two_declarations_one_explicit_id id 2

// -----

func.func @declaration_outside_a_module() {
  // expected-error @+1 {{symbol's parent must have the SymbolTable trait}}
  "mbarrier.named_barrier"() {sym_name = "inner"} : () -> ()
  return
}

// -----

func.func @symbol_that_does_not_resolve() {
  // expected-error @+1 {{names @missing, which no mbarrier.named_barrier of the enclosing modules declares}}
  mbarrier.bar_sync @missing threads 128
  return
}

// -----

func.func @symbol_of_another_op() {
  // expected-error @+1 {{names @symbol_of_another_op, which is a 'func.func', not an mbarrier.named_barrier}}
  mbarrier.bar_arrive @symbol_of_another_op threads 128
  return
}

// -----

mbarrier.named_barrier @b
func.func @count_not_a_multiple_of_32() {
  // expected-error @+1 {{thread count must be a non-zero multiple of the warp size (32), got 100}}
  mbarrier.bar_sync @b threads 100
  return
}

// -----

mbarrier.named_barrier @b
func.func @count_zero() {
  // expected-error @+1 {{thread count must be a non-zero multiple of the warp size (32), got 0}}
  mbarrier.bar_arrive @b threads 0
  return
}

// -----

mbarrier.named_barrier @b
func.func @count_above_the_declared_block() attributes {known_block_size = array<i32: 256, 1, 1>} {
  // expected-error @+1 {{thread count 384 is more than the 256 threads of the block the kernel declares: the barrier never completes}}
  mbarrier.bar_sync @b threads 384
  return
}

// -----

mbarrier.named_barrier @b
llvm.func @count_above_nvvm_reqntid() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128>} {
  // expected-error @+1 {{thread count 256 is more than the 128 threads of the block the kernel declares}}
  mbarrier.bar_arrive @b threads 256
  llvm.return
}

// -----

mbarrier.named_barrier @b
func.func @count_above_any_block() {
  // expected-error @+1 {{thread count 2048 is more than the 1024 threads a block can have}}
  mbarrier.bar_sync @b threads 2048
  return
}

// -----

mbarrier.named_barrier @b
func.func @red_count_not_a_multiple_of_32(%p: i1) -> i32 {
  // expected-error @+1 {{thread count must be a non-zero multiple of the warp size (32), got 48}}
  %n = mbarrier.bar_red popc @b threads 48, %p : i32
  return %n : i32
}

// -----

mbarrier.named_barrier @b
func.func @red_popc_returns_i32(%p: i1) -> i1 {
  // expected-error @+1 {{bar.red.popc returns the count of threads, i32, not 'i1'}}
  %n = mbarrier.bar_red popc @b threads 64, %p : i1
  return %n : i1
}

// -----

mbarrier.named_barrier @b
func.func @red_and_returns_i1(%p: i1) -> i32 {
  // expected-error @+1 {{bar.red.and returns a predicate, i1, not 'i32'}}
  %n = mbarrier.bar_red and @b threads 64, %p : i32
  return %n : i32
}

// -----

mbarrier.named_barrier @b
// expected-error @+1 {{must be inside a function}}
"mbarrier.bar_sync"() {barrier = @b, threads = 64 : i32} : () -> ()
