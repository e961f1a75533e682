package grading

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gradeArgs collects args and grades them on tiny, in process; it returns
// the results by id and everything written for people (each feedback in
// Markdown and JSON, and summary.md).
func gradeArgs(t *testing.T, args []string, opts BatchOptions) (map[string]*Result, string) {
	t.Helper()
	e := tiny(t)
	subs, err := Collect(args)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(e, Options{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := g.GradeAll(context.Background(), subs, opts)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Result{}
	var all strings.Builder
	for _, r := range rs {
		if byID[r.ID] != nil {
			t.Errorf("two results with id %s", r.ID)
		}
		byID[r.ID] = r
		all.Write(r.JSON())
		all.Write(r.Markdown(e))
	}
	all.Write(g.Summary(rs))
	all.Write(g.GradesCSV(rs))
	return byID, all.String()
}

// TestGlobRefusesLinks (F11): `dspalab grade --exercise tiny subs/*`,
// the shell expanding the glob, must refuse symbolic links as expanding
// the folder does: a link to a file outside (a password file, a YAML file
// of secrets) is never read, so nothing of it is quoted, and a link to a
// directory outside is not graded.
func TestGlobRefusesLinks(t *testing.T) {
	e := tiny(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "passwd"), "root:x:0:0:root:/root:/bin/bash\n")
	write(t, filepath.Join(outside, "secrets.yaml"), "aws_secret_access_key: AKIAEXAMPLEKEY\n")
	write(t, filepath.Join(outside, "theirs", "scenario.yaml"), read(t, e, "solution.yaml"))
	write(t, filepath.Join(outside, "theirs", "answers.yaml"), "which: work\nrate: 42\n")
	subs := filepath.Join(t.TempDir(), "subs")
	write(t, filepath.Join(subs, "good", "scenario.yaml"), read(t, e, "solution.yaml"))
	for link, target := range map[string]string{
		"passwd.yaml":  filepath.Join(outside, "passwd"),
		"keys.yaml":    filepath.Join(outside, "secrets.yaml"),
		"theirs":       filepath.Join(outside, "theirs"),
		"slashed":      filepath.Join(outside, "theirs"),
		"inside.yaml":  filepath.Join(subs, "good", "scenario.yaml"),
		"dangling.yml": filepath.Join(outside, "nothing"),
	} {
		if err := os.Symlink(target, filepath.Join(subs, link)); err != nil {
			t.Fatal(err)
		}
	}
	args, err := filepath.Glob(filepath.Join(subs, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if filepath.Base(a) == "slashed" {
			args[i] = a + "/" // subs/*/ in the shell: Lstat would follow the link
		}
	}
	byID, all := gradeArgs(t, args, BatchOptions{Jobs: 2})
	for _, leak := range []string{"root:x", "/bin/bash", "aws_secret_access_key", "AKIA", outside} {
		if strings.Contains(all, leak) {
			t.Errorf("the reports quote %q:\n%s", leak, all)
		}
	}
	for _, id := range []string{"passwd", "keys", "theirs", "slashed", "inside", "dangling"} {
		r := byID[id]
		if r == nil {
			t.Errorf("no result for %s; have %v", id, slices.Sorted(maps.Keys(byID)))
			continue
		}
		if r.Score != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "is a symbolic link: a submission is read only from the submissions' directory, never through a link") {
			t.Errorf("%s: %s points, problems %q; want 0 and the link refused", id, points(r.Score), r.Problems)
		}
	}
	if r := byID["good"]; r == nil || r.Score != 6 {
		t.Errorf("good: %v, want 6 points (no answers)", r)
	}
	// the same links found by expanding the folder: the same reasons
	byDir, _ := gradeArgs(t, []string{subs}, BatchOptions{Jobs: 2})
	for _, id := range []string{"passwd", "keys", "theirs", "inside"} {
		if a, b := byID[id], byDir[id]; a == nil || len(a.Problems) == 0 || b == nil || b.Score != 0 || len(b.Problems) == 0 || strings.ReplaceAll(a.Problems[0], subs+string(filepath.Separator), "") != b.Problems[0] {
			t.Errorf("%s given alone: %q; found in the folder: %v", id, a.Problems, b)
		}
	}
}

// TestIDClash (F10): folders alice, Alice and alice-2 must give three
// rows, each with its own folder's grade: no id is another folder's name,
// the source column names the folder, and the ids do not depend on the
// order of the arguments or on which other folders the batch holds.
func TestIDClash(t *testing.T) {
	e := tiny(t)
	subs := filepath.Join(t.TempDir(), "subs")
	// alice: full marks; Alice: the starter (0 points); alice-2: two subtasks (2)
	write(t, filepath.Join(subs, "alice", "scenario.yaml"), read(t, e, "solution.yaml"))
	write(t, filepath.Join(subs, "alice", "answers.yaml"), "which: work\nrate: 42\n")
	write(t, filepath.Join(subs, "Alice", "scenario.yaml"), read(t, e, "starter.yaml"))
	write(t, filepath.Join(subs, "alice-2", "scenario.yaml"), read(t, e, "wrong-two.yaml"))
	score := map[string]float64{"alice": 10, "Alice": 0, "alice-2": 2}
	for name, s := range score {
		r, _ := gradeArgs(t, []string{filepath.Join(subs, name)}, BatchOptions{Jobs: 1})
		if got := r[name].Score; got != s {
			t.Fatalf("%s alone: %s points, want %s", name, points(got), points(s))
		}
	}
	check := func(args []string) map[string]string {
		byID, csv := gradeArgs(t, args, BatchOptions{Jobs: 2})
		idOf := map[string]string{}
		for id, r := range byID {
			folder := filepath.Base(r.Source)
			if want, ok := score[folder]; !ok || r.Score != want {
				t.Errorf("row %s (source %s): %s points, want %s, the score of folder %s", id, r.Source, points(r.Score), points(want), folder)
			}
			if _, ok := score[id]; ok && id != folder {
				t.Errorf("row %s grades folder %s: an id must never be another folder's name", id, folder)
			}
			idOf[folder] = id
			if !strings.Contains(csv, "\n"+id+","+r.Source+",") {
				t.Errorf("grades.csv has no row %s,%s:\n%s", id, r.Source, csv)
			}
		}
		if len(idOf) != len(score) || len(byID) != len(score) {
			t.Errorf("%d rows for %d folders: %v", len(byID), len(score), idOf)
		}
		return idOf
	}
	args := []string{filepath.Join(subs, "alice"), filepath.Join(subs, "Alice"), filepath.Join(subs, "alice-2")}
	first := check(args)
	if first["alice-2"] != "alice-2" {
		t.Errorf("alice-2 clashes with no one, yet is %s", first["alice-2"])
	}
	slices.Reverse(args)
	if again := check(args); !maps.Equal(first, again) {
		t.Errorf("ids depend on the order: %v, then %v", first, again)
	}
	if dir := check([]string{subs}); !maps.Equal(first, dir) {
		t.Errorf("ids given one by one %v, found in the folder %v", first, dir)
	}
	// another batch with the clash: alice keeps its id
	write(t, filepath.Join(subs, "bob", "scenario.yaml"), read(t, e, "starter.yaml"))
	score["bob"] = 0
	if more := check([]string{subs}); more["alice"] != first["alice"] || more["Alice"] != first["Alice"] || more["bob"] != "bob" {
		t.Errorf("with bob the ids are %v; before %v", more, first)
	}
}

// snapshot returns every file under dir, by path relative to it.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestWriteReportsFullDisk (F9): a disk that fills up while the grades
// are written, or a move that fails, leaves the previous batch's outputs
// whole (not grades.csv of the new batch with summary.md of the old), and
// says so; a batch that succeeds replaces them whole, with no feedback
// left of a submission it does not hold.
func TestWriteReportsFullDisk(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	grade := func(id, file string) *Result {
		r, err := g.GradeYAML(context.Background(), id, ScenarioFile, []byte(read(t, e, file)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := []*Result{grade("alice", "solution.yaml"), grade("bob", "starter.yaml")}
	second := []*Result{grade("alice", "starter.yaml"), grade("carol", "solution.yaml")}
	out := filepath.Join(t.TempDir(), "grades")
	if _, err := g.WriteReports(out, first); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(out, "notes.txt"), "the instructor's\n")
	before := snapshot(t, out)

	full := errors.New("no space left on device")
	for _, fail := range []struct {
		what string
		n    int // fail the nth call (from 1)
	}{
		{"write", 3}, {"write", 6}, {"rename", 3}, {"rename", 8},
	} {
		calls := 0
		if fail.what == "write" {
			orig := writeFile
			writeFile = func(p string, data []byte) error {
				if calls++; calls >= fail.n {
					return full
				}
				return orig(p, data)
			}
			_, err = g.WriteReports(out, second)
			writeFile = orig
		} else {
			orig := rename
			rename = func(a, b string) error {
				if calls++; calls == fail.n {
					return full
				}
				return orig(a, b)
			}
			_, err = g.WriteReports(out, second)
			rename = orig
		}
		if err == nil || !strings.Contains(err.Error(), "no space left on device; the previous grades in "+out+" were kept") {
			t.Errorf("%s %d failing: err %v, want the previous grades kept", fail.what, fail.n, err)
		}
		if after := snapshot(t, out); !maps.Equal(before, after) {
			t.Errorf("%s %d failing changed the grades: %v, before %v", fail.what, fail.n, slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
		}
	}
	if _, err := g.WriteReports(out, second); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, out)
	if _, ok := after["feedback/bob.md"]; ok || after["notes.txt"] != "the instructor's\n" || after["feedback/carol.json"] == "" {
		t.Errorf("after the second batch: %v", slices.Sorted(maps.Keys(after)))
	}
	if !strings.Contains(after["grades.csv"], "\ncarol,,6,") || strings.Contains(after["summary.md"], "bob") {
		t.Errorf("grades.csv and summary.md are not the second batch's:\n%s\n%s", after["grades.csv"], after["summary.md"])
	}
	// a file of the user's in feedback/: refused before anything is written
	write(t, filepath.Join(out, FeedbackDir, "remarks.txt"), "mine\n")
	before = snapshot(t, out)
	if _, err := g.WriteReports(out, first); err == nil || !strings.Contains(err.Error(), "holds remarks.txt, which dspalab does not write; nothing was replaced") {
		t.Errorf("feedback/remarks.txt: err %v", err)
	}
	if !maps.Equal(before, snapshot(t, out)) {
		t.Error("a refused batch changed the grades")
	}
	// .md and .json files of the user's: refused too, as no row of
	// grades.csv names them (feedback/ is replaced whole)
	os.Remove(filepath.Join(out, FeedbackDir, "remarks.txt"))
	for _, name := range []string{"RUBRIC.md", "late-days.json", "bob.md"} { // bob: in the first batch, not this one
		write(t, filepath.Join(out, FeedbackDir, name), "mine\n")
		before = snapshot(t, out)
		if _, err := g.WriteReports(out, first); err == nil || !strings.Contains(err.Error(), "holds "+name+", which is not the feedback of a submission in "+filepath.Join(out, GradesFile)+" (dspalab did not write it); nothing was replaced") {
			t.Errorf("feedback/%s: err %v", name, err)
		}
		if !maps.Equal(before, snapshot(t, out)) {
			t.Errorf("feedback/%s: a refused batch changed the grades", name)
		}
		os.Remove(filepath.Join(out, FeedbackDir, name))
	}
	// a grades.csv that is not dspalab's: nothing tells whose feedback/ is
	for _, csv := range []string{"student;score\n", "id,name\nbob,Bob\n"} {
		write(t, filepath.Join(out, GradesFile), csv)
		if _, err := g.WriteReports(out, first); err == nil || !strings.Contains(err.Error(), "is not a grades.csv that dspalab wrote (its columns must begin id,source,score,max)") {
			t.Errorf("a foreign grades.csv %q: err %v", csv, err)
		}
	}

	// no grades.csv: an instructor's summary.md or histogram.png in the
	// directory is refused, not replaced
	for _, name := range []string{SummaryFile, HistogramFile} {
		own := t.TempDir()
		write(t, filepath.Join(own, name), "the instructor's\n")
		_, err := g.WriteReports(own, first)
		if want := filepath.Join(own, name) + " is there without a " + filepath.Join(own, GradesFile) + ", so dspalab did not write it; nothing was replaced"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s of the instructor's: err %v, want %q", name, err, want)
		}
		if got := snapshot(t, own); len(got) != 1 || got[name] != "the instructor's\n" {
			t.Errorf("%s of the instructor's: the directory is now %v", name, slices.Sorted(maps.Keys(got)))
		}
	}
}
