// An optimization level above 3 given to mbarrier-attach-target directly (the
// mbarrier-to-ptx pipeline already rejects it while parsing its options) is a
// located error that names the level.
// (Regression: the Option<unsigned> was once streamed as a character, so O=9
// read "optimization level <TAB> ...".)
// RUN: mbarrier-opt %s -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-attach-target{O=9})"

// expected-error @+1 {{optimization level 9 is not one of 0, 1, 2, 3}}
module {
}
