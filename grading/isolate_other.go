//go:build !unix

package grading

import "os/exec"

// killGroup: without process groups, cancelling cmd kills its process.
func killGroup(cmd *exec.Cmd) {}

// killedByOOM: no signals to tell.
func killedByOOM(*exec.ExitError) bool { return false }

// limitMemory: no setrlimit; the soft limit of the runtime remains.
func limitMemory(int64) error { return nil }
