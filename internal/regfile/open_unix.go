//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// open opens path read-only without blocking on a FIFO or a device that
// waits for a writer; Open checks what it opened.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
