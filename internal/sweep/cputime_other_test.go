//go:build !unix

package sweep

import "time"

// cpuTime is 0 where getrusage is missing: the cores metric reads 0.
func cpuTime() time.Duration { return 0 }
