package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// within runs f and fails the test if it takes more than 20 s: a reader
// that spins or reads without end.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s does not return", what)
		return nil
	}
}

// F18: hostile run directories. timeseries.csv behind a symbolic link to
// /dev/zero is refused, not read; a time_s of Inf or 1e308 is refused
// with its file and line before anything is drawn (the heatmap's
// rasterizer spun on it); a line longer than 1MiB is refused with its
// file and line, in timeseries.csv and in events.jsonl, as soon as it
// passes the limit; times in events.jsonl and summary.json are checked
// too.
func TestHostileRunDirectories(t *testing.T) {
	tmp := t.TempDir()
	cases := []struct {
		name   string
		edit   func(t *testing.T, dir string)
		want   string
		report bool // the report sees it too (it reads subtasks only for a heatmap)
	}{
		{"dev-zero", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "timeseries.csv"))
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "timeseries.csv")); err != nil {
				t.Skip("no symbolic links:", err)
			}
		}, "timeseries.csv is not a regular file (a character device)", true},
		{"inf", func(t *testing.T, dir string) {
			appendLine(t, dir, "timeseries.csv", "Inf,parse,operator,-1,1,1,0,0,1,1,1,OK,,,,,,")
		},
			"timeseries.csv line 242: time_s Inf is not a simulated time (0 to 9.22e+09 seconds)", true},
		{"huge", func(t *testing.T, dir string) {
			appendLine(t, dir, "timeseries.csv", "1e308,parse,operator,-1,1,1,0,0,1,1,1,OK,,,,,,")
		},
			"timeseries.csv line 242: time_s 1e308 is not a simulated time", true},
		{"back-in-time", func(t *testing.T, dir string) {
			appendLine(t, dir, "timeseries.csv", "3,parse,operator,-1,1,1,0,0,1,1,1,OK,,,,,,")
		},
			"timeseries.csv line 242: time_s 3 of parse comes before the 30 of its row before", true},
		{"long-line", func(t *testing.T, dir string) { appendLine(t, dir, "timeseries.csv", "1,"+strings.Repeat("x", 2<<20)) },
			"timeseries.csv line 242: longer than 1MiB, the longest line dspalab reads", true},
		{"long-event", func(t *testing.T, dir string) {
			appendLine(t, dir, "events.jsonl", `{"time_s":1,"type":"`+strings.Repeat("x", 2<<20)+`"}`)
		},
			"events.jsonl line 18: longer than 1MiB", true},
		{"event-time", func(t *testing.T, dir string) {
			appendLine(t, dir, "events.jsonl", `{"time_s":1e308,"type":"job_failed"}`)
		},
			"events.jsonl line 18: time_s 1e+308 is not a simulated time", true},
		{"summary-time", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "summary.json")
			b, _ := os.ReadFile(p)
			s := strings.Replace(string(b), `"simulated_s": 30`, `"simulated_s": 1e308`, 1)
			if s == string(b) {
				t.Fatal("summary.json has no simulated_s of 30")
			}
			os.WriteFile(p, []byte(s), 0o644)
		}, "summary.json: simulated_s 1e+308 is not a simulated time", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyRun(t, "run-a")
			c.edit(t, dir)
			err := within(t, "plot --heatmap", func() error {
				return Plot(PlotOptions{Inputs: []string{dir}, Heatmap: true, Output: filepath.Join(tmp, c.name+".png")})
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("plot --heatmap: err = %v, want %q", err, c.want)
			}
			err = within(t, "plot", func() error {
				return Plot(PlotOptions{Inputs: []string{dir}, Output: filepath.Join(tmp, c.name+".svg")})
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("plot: err = %v, want %q", err, c.want)
			}
			if c.report {
				err = within(t, "report", func() error {
					return Write(Options{RunDir: dir, Output: filepath.Join(tmp, c.name+".html")})
				})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("report: err = %v, want %q", err, c.want)
				}
			}
		})
	}
}

func appendLine(t *testing.T, dir, name, line string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
