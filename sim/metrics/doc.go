// Package metrics holds the simulator's measurement primitives: Histogram, a
// streaming histogram of simulated durations (des.Time, integer nanoseconds)
// that answers quantile queries within 1% relative error in constant memory
// and without allocating on the hot path.
//
// The package is deterministic and single-threaded like the des kernel: a
// Histogram is not safe for concurrent use; give each goroutine its own and
// combine them with Merge.
package metrics
