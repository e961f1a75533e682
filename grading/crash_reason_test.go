package grading

import (
	"errors"
	"strings"
	"testing"
)

// TestCrashReason: what a worker's stderr says decides between out of
// memory and a crash. Under RLIMIT_AS a cgo binary may fail to create a
// thread rather than to grow its heap: runtime/cgo prints "pthread_create
// failed" and aborts with exit status 2 and no "fatal error:" line, which
// was graded "crashed (exit status 2)" on a loaded machine.
func TestCrashReason(t *testing.T) {
	exit2 := errors.New("exit status 2")
	for _, c := range []struct{ stderr, want string }{
		{"fatal error: runtime: out of memory\n\ngoroutine 1 [running]:\n", "the simulation ran out of memory: it needs more than 128MiB"},
		{"runtime: failed to create new OS thread (have 9 already; errno=12)\nfatal error: newosproc\n", "the simulation ran out of memory"},
		{"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\nPC=0x4a5b1c m=3 sigcode=18446744073709551610\n", "the simulation ran out of memory"},
		{"runtime/cgo: malloc failed: Cannot allocate memory\nSIGABRT: abort\n", "the simulation ran out of memory"},
		{"runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow\n", "the simulation crashed (exit status 2: fatal error: stack overflow); please report it"},
		{"SIGSEGV: segmentation violation\n", "the simulation crashed (exit status 2); please report it"},
	} {
		if got := crashReason(exit2, []byte(c.stderr), 128<<20); !strings.HasPrefix(got, c.want) {
			t.Errorf("stderr %q: %q, want %q...", c.stderr, got, c.want)
		}
	}
}
