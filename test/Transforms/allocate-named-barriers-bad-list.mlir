// mbarrier-allocate-named-barriers: a malformed reserved list is an error
// of the pass, at the module it runs on.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-allocate-named-barriers="reserved=3-1"

// expected-error @+1 {{mbarrier-allocate-named-barriers: reserved='3-1' is not a list of hardware barrier ids and ranges in 0..15 (e.g. 0,1-7)}}
module {
  mbarrier.named_barrier @b
}
