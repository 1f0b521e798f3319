// convert-mbarrier-to-nvvm on its own needs the ids assigned.
// RUN: mbarrier-opt %s -verify-diagnostics --convert-mbarrier-to-nvvm

// expected-note @+1 {{declared here without an id}}
mbarrier.named_barrier @b
func.func @use_of_a_barrier_without_id() {
  // expected-error @+1 {{names a named barrier without a hardware id: run mbarrier-allocate-named-barriers before convert-mbarrier-to-nvvm}}
  mbarrier.bar_sync @b threads 64
  return
}
