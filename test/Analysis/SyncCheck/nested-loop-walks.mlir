// The path walk on loops nested 20 deep (docs/checker.md, "Cost"): a loop
// reached again with the state of its last walk is not walked again, so the
// walk costs the nesting, not 2^20 body walks, and the reports of the
// skipped walks stand: the arrival after the innermost loop's inval (of the
// trip before) is still reported.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync

func.func @k(%n: index) attributes {known_block_size = array<i32: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %g = mbarrier.alloc : !mbarrier.group<1>
  mbarrier.init %g[%c0], %one : !mbarrier.group<1>
  scf.for %i0 = %c0 to %n step %c1 {
    scf.for %i1 = %c0 to %n step %c1 {
      scf.for %i2 = %c0 to %n step %c1 {
        scf.for %i3 = %c0 to %n step %c1 {
          scf.for %i4 = %c0 to %n step %c1 {
            scf.for %i5 = %c0 to %n step %c1 {
              scf.for %i6 = %c0 to %n step %c1 {
                scf.for %i7 = %c0 to %n step %c1 {
                  scf.for %i8 = %c0 to %n step %c1 {
                    scf.for %i9 = %c0 to %n step %c1 {
                      scf.for %i10 = %c0 to %n step %c1 {
                        scf.for %i11 = %c0 to %n step %c1 {
                          scf.for %i12 = %c0 to %n step %c1 {
                            scf.for %i13 = %c0 to %n step %c1 {
                              scf.for %i14 = %c0 to %n step %c1 {
                                scf.for %i15 = %c0 to %n step %c1 {
                                  scf.for %i16 = %c0 to %n step %c1 {
                                    scf.for %i17 = %c0 to %n step %c1 {
                                      scf.for %i18 = %c0 to %n step %c1 {
                                        scf.for %i19 = %c0 to %n step %c1 {
                                          // expected-warning @+1 {{may use a barrier after mbarrier.inval: on some path the barrier is invalidated and not initialized again}}
                                          mbarrier.arrive %g[%c0] : !mbarrier.group<1>
                                          mbarrier.inval %g[%c0] : !mbarrier.group<1>
                                        }
                                      }
                                    }
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return
}
