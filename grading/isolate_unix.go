//go:build unix

package grading

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes its
// cancellation (the timeout, or the batch's context) kill the whole group
// with SIGKILL. The group also keeps a terminal's Ctrl-C from reaching the
// worker: the parent decides.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killedByOOM reports whether the process was killed by SIGKILL that the
// parent did not send: the kernel's OOM killer (the parent's own kill, on
// a timeout or a cancellation, is told apart before).
func killedByOOM(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// limitMemory limits the address space of this process to what it holds
// now plus n bytes (setrlimit RLIMIT_AS), so that a run past it makes the
// Go runtime exit with "out of memory" instead of the machine swapping.
// The Go runtime reserves about 1 GiB of address space at start, most of
// it never touched: hence the base. Where /proc/self/statm cannot be read
// (not Linux), it does nothing: the soft limit of the runtime remains.
func limitMemory(n int64) error {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return nil
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return nil
	}
	pages, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return nil
	}
	limit := uint64(pages*int64(os.Getpagesize())+n) + threadStacks()
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// threadStacks is the address space left for the stacks of threads the
// Go runtime starts after the limit is set (more on a loaded machine:
// GC workers, threads blocked in system calls): reserved address space,
// not memory a scenario holds. A thread's stack takes RLIMIT_STACK's
// soft limit (glibc's default pthread stack size, 8 MiB as a rule), and
// a thread that does not fit fails the worker ("pthread_create failed")
// however little the run holds: room for maxThreads of them.
func threadStacks() uint64 {
	const maxThreads = 32
	size := uint64(8 << 20)
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &r); err == nil && r.Cur > 0 && r.Cur <= 64<<20 {
		size = r.Cur
	}
	return maxThreads * size
}
