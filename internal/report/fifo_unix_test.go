//go:build unix

package report

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// report -o naming a FIFO is refused at once: the check for a page of the
// user's opened it, which blocks until a writer comes (the command hung,
// deaf to SIGTERM).
func TestReportRefusesFIFO(t *testing.T) {
	dir := copyRun(t, "run-a")
	out := filepath.Join(t.TempDir(), "ff.html")
	if err := syscall.Mkfifo(out, 0o644); err != nil {
		t.Skip("no FIFOs:", err)
	}
	err := within(t, "report -o FIFO", func() error { return Write(Options{RunDir: dir, Output: out}) })
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("report into a FIFO: %v, want it refused as not a regular file", err)
	}
}
