//go:build unix

package regfile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes to is refused at once: opening it for reading
// would block forever.
func TestOpenFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "summary.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(p, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		var ne *NotRegularError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), "(a named pipe)") {
			t.Errorf("ReadFile(FIFO) = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
}
