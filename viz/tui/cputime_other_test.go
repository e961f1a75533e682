//go:build !unix

package tui

import "time"

// cpuTime is not measured here: the CPU overhead reads NaN.
func cpuTime() time.Duration { return 0 }
