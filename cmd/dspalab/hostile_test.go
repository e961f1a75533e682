package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bounds of every case of the hostile corpus.
const (
	hostileTimeout = 60 * time.Second
	hostileMemory  = 512 << 20 // bytes of resident memory at most
)

// TestHostileCorpus runs the hostile-input corpus (testdata/hostile,
// issue 13) through validate, run, sweep, plot, report and grade, each
// case in a process of its own (the test binary acting as dspalab), and
// checks that none panics, hangs or holds more than hostileMemory, and
// that each exits as the corpus says with the message it names.
func TestHostileCorpus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the corpus makes FIFOs and symbolic links")
	}
	exe, err := exec.LookPath("dspalab") // testscript.Main put the test binary there
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs("testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	env := append(os.Environ(), "DSPALAB_CACHE="+filepath.Join(tmp, "cache"), "DSPALAB_REGISTRY=", "HOME="+tmp, "NO_COLOR=1")
	run := func(args ...string) (code int, stdout, stderr string, rss int64, err error) {
		ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Env, cmd.Dir = env, tmp
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err = cmd.Run()
		if ctx.Err() != nil {
			return -1, o.String(), e.String(), 0, errors.New("still running after " + hostileTimeout.String() + ": it hangs")
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return -1, o.String(), e.String(), 0, err
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = int64(ru.Maxrss) << 10 // kilobytes on Linux
		}
		return cmd.ProcessState.ExitCode(), o.String(), e.String(), rss, nil
	}
	makeHostileFiles(t, tmp, corpus, run)

	cases := readHostileCases(t, filepath.Join(corpus, "cases.txt"))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.NewReplacer("$C", corpus, "$T", tmp).Replace(a)
			}
			code, stdout, stderr, rss, err := run(args...)
			out := stdout + stderr
			switch {
			case err != nil:
				t.Fatalf("dspalab %s: %v\n%s", strings.Join(args, " "), err, out)
			case strings.Contains(out, "panic:") || strings.Contains(out, "fatal error:") || strings.Contains(out, "goroutine "):
				t.Fatalf("dspalab %s crashed:\n%s", strings.Join(args, " "), out)
			case rss > hostileMemory:
				t.Errorf("dspalab %s held %d MiB, more than %d MiB", strings.Join(args, " "), rss>>20, hostileMemory>>20)
			}
			if code != c.exit {
				t.Errorf("dspalab %s: exit status %d, want %d\nstderr:\n%s", strings.Join(args, " "), code, c.exit, stderr)
			}
			if !c.stderr.MatchString(stderr) {
				t.Errorf("dspalab %s: stderr does not match %q:\n%s", strings.Join(args, " "), c.stderr, stderr)
			}
			if c.exit != 0 && !strings.HasPrefix(stderr, "dspalab: ") && !regexp.MustCompile(`(?m)^\S+:\d+:\d+: `).MatchString(stderr) &&
				!strings.Contains(stderr, "\ndspalab: ") {
				t.Errorf("dspalab %s: the error names neither dspalab nor a file:line:col:\n%s", strings.Join(args, " "), stderr)
			}
		})
	}
	t.Run("grade-hostile-grades", func(t *testing.T) { checkHostileGrades(t, tmp) })
}

type hostileCase struct {
	name   string
	exit   int
	stderr *regexp.Regexp
	args   []string
}

// readHostileCases reads cases.txt: NAME | EXIT | STDERR | ARGS lines.
func readHostileCases(t *testing.T, path string) []hostileCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []hostileCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 4 {
			t.Fatalf("%s:%d: want NAME | EXIT | STDERR | ARGS", path, n)
		}
		exit, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("%s:%d: exit status %q", path, n, parts[1])
		}
		re, err := regexp.Compile(parts[2])
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		cases = append(cases, hostileCase{parts[0], exit, re, strings.Fields(parts[3])})
	}
	if len(cases) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	return cases
}

// makeHostileFiles makes in dir what git cannot hold: a FIFO scenario,
// a scenario that is /dev/zero, run directories whose files are a FIFO,
// /dev/zero, times of Inf and 1e308 and a line of 8 MiB, and a folder of
// submissions with a symbolic link out of it, one to /etc/passwd, an id
// clash, an alias bomb and a billion workers.
func makeHostileFiles(t *testing.T, dir, corpus string, run func(...string) (int, string, string, int64, error)) {
	t.Helper()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check(syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644))
	check(os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))

	good := filepath.Join(dir, "run-good")
	if code, _, stderr, _, err := run("run", "mm1", "--duration", "30s", "--out", good); err != nil || code != 0 {
		t.Fatalf("a good run: %d %v\n%s", code, err, stderr)
	}
	variant := func(name string) string {
		d := filepath.Join(dir, name)
		check(os.MkdirAll(d, 0o755))
		entries, err := os.ReadDir(good)
		check(err)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(good, e.Name()))
			check(err)
			check(os.WriteFile(filepath.Join(d, e.Name()), b, 0o644))
		}
		return d
	}
	d := variant("run-fifo")
	check(os.Remove(filepath.Join(d, "summary.json")))
	check(syscall.Mkfifo(filepath.Join(d, "summary.json"), 0o644))
	d = variant("run-zero")
	check(os.Remove(filepath.Join(d, "timeseries.csv")))
	check(os.Symlink("/dev/zero", filepath.Join(d, "timeseries.csv")))
	d = variant("run-inf")
	ts, err := os.ReadFile(filepath.Join(d, "timeseries.csv"))
	check(err)
	lines := strings.Split(strings.TrimRight(string(ts), "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		_, rest, _ := strings.Cut(lines[i], ",")
		lines[i] = map[bool]string{true: "Inf", false: "1e308"}[i%2 == 0] + "," + rest
	}
	check(os.WriteFile(filepath.Join(d, "timeseries.csv"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	d = variant("run-long")
	f, err := os.OpenFile(filepath.Join(d, "timeseries.csv"), os.O_APPEND|os.O_WRONLY, 0)
	check(err)
	_, err = f.Write(append(bytes.Repeat([]byte("9"), 8<<20), '\n'))
	check(errors.Join(err, f.Close()))

	subs := filepath.Join(dir, "subs")
	starter, err := os.ReadFile("../../exercises/builtin/state-backend/starter.yaml")
	check(err)
	for _, name := range []string{"alice", "Alice", "bob"} {
		check(os.MkdirAll(filepath.Join(subs, name), 0o755))
		check(os.WriteFile(filepath.Join(subs, name, "scenario.yaml"), starter, 0o644))
	}
	huge := strings.Replace(string(starter), "count: 2,", "count: 1000000000,", 1)
	if huge == string(starter) {
		t.Fatal("the state-backend starter has no workers count: 2")
	}
	check(os.WriteFile(filepath.Join(subs, "huge.yaml"), []byte(huge), 0o644))
	bomb, err := os.ReadFile(filepath.Join(corpus, "alias-bomb-field.yaml"))
	check(err)
	check(os.WriteFile(filepath.Join(subs, "bomb.yaml"), bomb, 0o644))
	check(os.Symlink("/etc/passwd", filepath.Join(subs, "passwd.yaml")))
	outside := filepath.Join(dir, "outside")
	check(os.MkdirAll(outside, 0o755))
	check(os.WriteFile(filepath.Join(outside, "scenario.yaml"), starter, 0o644))
	check(os.Symlink(outside, filepath.Join(subs, "escape")))
	check(syscall.Mkfifo(filepath.Join(subs, "fifo.yaml"), 0o644))
}

// checkHostileGrades checks the grades of the hostile batch: the three
// good submissions graded alike on rows of their own, every hostile one a
// row with 0 points, and nothing of /etc/passwd quoted.
func checkHostileGrades(t *testing.T, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "grades", "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	score := map[string]string{}
	for _, r := range rows[1:] {
		f := strings.Split(r, ",")
		score[f[0]] = f[2]
	}
	good := map[string]bool{}
	for id, s := range score {
		switch {
		case strings.HasPrefix(strings.ToLower(id), "alice") || id == "bob":
			good[s] = true
		case s != "0":
			t.Errorf("hostile submission %s got %s points", id, s)
		}
	}
	if len(good) != 1 || good["0"] || len(rows) != 1+8 {
		t.Errorf("grades.csv:\n%s", data)
	}
	all, _ := exec.Command("grep", "-r", "root:", filepath.Join(dir, "grades")).Output()
	if len(all) > 0 {
		t.Errorf("the grades quote /etc/passwd:\n%s", all)
	}
}
