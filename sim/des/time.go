// Package des is the discrete-event kernel of the simulator: simulated time,
// an event queue ordered by (time, sequence), and seeded random streams.
//
// The kernel is single-threaded and deterministic: it starts no goroutines,
// and the same sequence of Schedule calls yields the same sequence of events.
package des

import (
	"math"
	"time"
)

// Time is a point in simulated time, in integer nanoseconds since the start
// of the run. It is never a wall-clock time and never a float.
type Time int64

// Duration is a span of simulated time in integer nanoseconds.
type Duration = Time

// Common spans of simulated time.
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	Minute      Time = 60 * Second
	Hour        Time = 60 * Minute
	// Never is later than any reachable simulated time.
	Never Time = math.MaxInt64
)

// Seconds returns t in simulated seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Milliseconds returns t in simulated milliseconds as a float.
func (t Time) Milliseconds() float64 { return float64(t) / float64(Millisecond) }

// String formats t like time.Duration ("1m30s", "250ms").
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	return time.Duration(t).String()
}

// FromSeconds converts simulated seconds to Time, rounding to the nearest
// nanosecond. It saturates at Never for values too large to represent and
// returns 0 for NaN or negative input.
func FromSeconds(s float64) Time {
	if math.IsNaN(s) || s <= 0 {
		return 0
	}
	ns := s * float64(Second)
	if ns >= float64(math.MaxInt64) {
		return Never
	}
	return Time(math.Round(ns))
}
