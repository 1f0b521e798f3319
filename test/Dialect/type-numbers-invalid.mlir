// The numbers of the pipe, group and remote types are parsed as written
// (signed, 64-bit) and checked before they are narrowed: a negative or huge
// number is a located error that shows it as written, a parameter given
// twice is an error (the reproducers: a duplicate pipe
// parameter, negative cluster dimensions and a cluster product that wraps, each
// accepted before).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics
// RUN: %mlir_opt %mbarrier_plugin_opts %s -split-input-file -verify-diagnostics

// expected-error @+1 {{pipe parameter 'producers' is given twice}}
func.func private @duplicate_parameter(%p: !mbarrier.pipe<2, tma, producers = 1, producers = 2>)

// -----

// expected-error @+1 {{pipe parameter 'cluster' is given twice}}
func.func private @duplicate_cluster(%p: !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row, cluster = [1, 1]>)

// -----

// expected-error @+1 {{cluster = [-2, -8] is not a cluster shape: each dimension at least 1, at most 16 CTAs}}
func.func private @negative_cluster(%p: !mbarrier.pipe<2, tma, cluster = [-2, -8]>)

// -----

// The product of these wraps to 1 in 32 bits.
// expected-error @+1 {{cluster = [4294967295, 4294967295] is not a cluster shape: each dimension at least 1, at most 16 CTAs}}
func.func private @cluster_product_wraps(%p: !mbarrier.pipe<2, tma, cluster = [4294967295, 4294967295]>)

// -----

// expected-error @+1 {{cluster = [65536, 65536] is not a cluster shape}}
func.func private @cluster_product_wraps_to_zero(%p: !mbarrier.pipe<2, tma, cluster = [65536, 65536]>)

// -----

// expected-error @+1 {{a pipe needs at least one stage, got -1}}
func.func private @negative_depth(%p: !mbarrier.pipe<-1, tma>)

// -----

// expected-error @+1 {{a pipe of 4294967298 stages needs 68719476768 bytes of barriers, more than the 227 KiB of shared memory a CTA can have}}
func.func private @depth_past_32_bits(%p: !mbarrier.pipe<4294967298, tma>)

// -----

// expected-error @+1 {{a pipe of 9223372036854775807 stages needs 147573952589676412912 bytes of barriers}}
func.func private @depth_at_64_bits(%p: !mbarrier.pipe<9223372036854775807, tma>)

// -----

// expected-error @+1 {{producers must be 1 to 1048575 (arrivals on a full barrier per phase), got -1}}
func.func private @negative_producers(%p: !mbarrier.pipe<2, tma, producers = -1>)

// -----

// expected-error @+1 {{consumers must be 1 to 1048575 (release arrivals per phase from each CTA), got 4294967296}}
func.func private @consumers_past_32_bits(%p: !mbarrier.pipe<2, tma, consumers = 4294967296>)

// -----

// expected-error @+1 {{integer value too large}}
func.func private @depth_past_64_bits(%p: !mbarrier.pipe<18446744073709551617, tma>)

// -----

// expected-error @+1 {{an mbarrier group needs at least one barrier, got -1}}
func.func private @negative_group(%g: !mbarrier.group<-1>)

// -----

// expected-error @+1 {{an mbarrier group of 4294967297 barriers (34359738376 bytes) does not fit the 227 KiB of shared memory a CTA can have}}
func.func private @group_past_32_bits(%g: !mbarrier.group<4294967297>)

// -----

// expected-error @+1 {{an mbarrier group needs at least one barrier, got -3}}
func.func private @negative_remote(%r: !mbarrier.remote<-3>)

// -----

// expected-error @+1 {{an mbarrier group of 9223372036854775807 barriers (73786976294838206456 bytes) does not fit}}
func.func private @group_at_64_bits(%g: !mbarrier.group<9223372036854775807>)
