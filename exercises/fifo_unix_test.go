//go:build unix

package exercises

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pack whose exercise.yaml is a FIFO is refused at once (issue 13 F1):
// opening it through os.DirFS would block until a writer came.
func TestPackFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "ex1"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "ex1", ExerciseFile), 0o644); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := OpenDir(dir)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "exercise.yaml is not a regular file (a named pipe)") {
			t.Errorf("OpenDir = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenDir blocks on a FIFO")
	}
}
