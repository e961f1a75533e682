package main

import (
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
