// The same check for a cluster shape given as nvvm.cluster_dim.
// RUN: mbarrier-opt %s -verify-diagnostics --convert-mbarrier-to-nvvm

// expected-error @+1 {{'nvvm.cluster_dim' must have one to three positive dimensions (x[, y[, z]]), got array<i32: 2, -1, 1>}}
func.func @negative_cluster_dim_is_rejected() attributes {nvvm.cluster_dim = array<i32: 2, -1, 1>} {
  return
}
