//go:build unix

package grading

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
}

// TestFIFO: a FIFO is never opened (which would block): as the .yaml of a
// class folder it is a submission graded 0 with the reason; as
// answers.yaml it costs the questions only.
func TestFIFO(t *testing.T) {
	e := tiny(t)
	dir := filepath.Join(t.TempDir(), "class")
	write(t, filepath.Join(dir, "good", "scenario.yaml"), read(t, e, "solution.yaml"))
	mkfifo(t, filepath.Join(dir, "pipe.yaml"))
	write(t, filepath.Join(dir, "pipe-answers", "scenario.yaml"), read(t, e, "solution.yaml"))
	mkfifo(t, filepath.Join(dir, "pipe-answers", "answers.yaml"))
	mkfifo(t, filepath.Join(dir, "not-yaml.txt"))

	subs, err := Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.ID)
	}
	if want := []string{"good", "pipe-answers", "pipe"}; !slices.Equal(ids, want) {
		t.Fatalf("submissions %q, want %q", ids, want)
	}
	g, err := New(e, Options{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, err := g.GradeAll(ctx, subs, BatchOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Result{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	if r := byID["pipe"]; r.Score != 0 || !slices.Equal(r.Problems, []string{"pipe.yaml is not a regular file"}) {
		t.Errorf("pipe: %s, problems %q", points(r.Score), r.Problems)
	}
	if r := byID["pipe-answers"]; r.Score != 6 || !slices.Equal(r.Problems, []string{"answers.yaml is not a regular file"}) {
		t.Errorf("pipe-answers: %s, problems %q", points(r.Score), r.Problems)
	}
	if sum := string(g.Summary(rs)); !strings.Contains(sum, "- **pipe** (0): pipe.yaml is not a regular file\n") {
		t.Errorf("summary.md:\n%s", sum)
	}

	// a FIFO as the previous grades.csv (read for the ids of feedback/):
	// refused, not opened
	out := t.TempDir()
	mkfifo(t, filepath.Join(out, GradesFile))
	done := make(chan error, 1)
	go func() { done <- CheckOutputDir(out) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "grades.csv is not a regular file, which dspalab does not write; nothing was replaced") {
			t.Errorf("a FIFO grades.csv: err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CheckOutputDir blocked on a FIFO grades.csv")
	}
}
