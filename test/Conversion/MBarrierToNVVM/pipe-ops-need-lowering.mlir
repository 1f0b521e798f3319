// convert-mbarrier-to-nvvm lowers barrier ops; pipeline ops are
// mbarrier-lower-pipes' (mbarrier-to-ptx runs it first): a located error
// that names the pass, not "failed to legalize".
// RUN: mbarrier-opt %s -verify-diagnostics --convert-mbarrier-to-nvvm

func.func @pipe_op_before_lower_pipes() {
  %g = mbarrier.alloc : !mbarrier.group<4>
  // expected-error @below {{is a pipeline op: run mbarrier-lower-pipes before convert-mbarrier-to-nvvm}}
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  return
}
