package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the dspalab command inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"dspalab": func() { os.Exit(realMain()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script/*.txtar. Besides
// testscript's built-in commands they have:
//
//	exitcode N PROG ARGS...  run PROG and check that it exits with status N
//	validjson FILE           check that FILE (or stdout) holds one JSON value
//	ls DIR                   list DIR's entries (hidden ones too) on stdout
//	sleep DURATION           wait, e.g. sleep 1s
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  cmdExitcode,
			"validjson": cmdValidJSON,
			"ls":        cmdLs,
			"sleep":     cmdSleep,
		},
	})
}

func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

func cmdValidJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: validjson FILE")
	}
	var v any
	err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &v)
	switch {
	case neg && err == nil:
		ts.Fatalf("%s is valid JSON", args[0])
	case !neg && err != nil:
		ts.Fatalf("%s is not valid JSON: %v", args[0], err)
	}
}

func cmdLs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ls DIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	ts.Stdout().Write([]byte(strings.Join(names, "\n") + "\n"))
}

func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// failWriter fails every write, as stdout on a full disk (> /dev/full).
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteErrors checks that no command ignores a failed write to stdout:
// each exits 1 and says so on stderr, whether the command wrote or cobra
// did (help, version, completion).
func TestWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "mm1"},
		{"scenarios"},
		{"scenarios", "show", "mm1"},
		{"schema"},
		{"run", "mm1", "--duration", "30s"},
		{"run", "mm1", "--duration", "30s", "--json"},
		{"--help"},
		{"run", "--help"},
		{"--version"},
		{"completion", "bash"},
	} {
		var stderr bytes.Buffer
		code := execute(context.Background(), args, failWriter{}, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("dspalab %s > /dev/full: exit status %d, stderr %q; want 1 and the write error",
				strings.Join(args, " "), code, stderr.String())
		}
	}

	// A failed write to stderr cannot be reported, but fails the command.
	var stdout bytes.Buffer
	dir := t.TempDir()
	if code := execute(context.Background(), []string{"run", "mm1", "--duration", "30s", "--out", dir}, &stdout, failWriter{}); code != 1 {
		t.Errorf("a failed wrote line: exit status %d, want 1", code)
	}
	// It does not hide a usage error.
	if code := execute(context.Background(), []string{"run", "--jsn"}, &stdout, failWriter{}); code != 2 {
		t.Errorf("a usage error with a failing stderr: exit status %d, want 2", code)
	}
}

func TestNearestFlag(t *testing.T) {
	cmd := newRunCmd()
	for typed, want := range map[string]string{
		"jsn":        "json",
		"JSON":       "json",
		"sed":        "seed",
		"max-sub":    "max-subtasks",
		"max-queue":  "max-queued",
		"max":        "", // the prefix of several
		"durations":  "duration",
		"output":     "out",
		"zzzzzzzzzz": "",
		"":           "",
	} {
		if got := nearestFlag(cmd, typed); got != want {
			t.Errorf("nearestFlag(%q) = %q, want %q", typed, got, want)
		}
	}
}
