package runfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// createErr locks dir and starts the files names there; the lock is
// released at once (the Writer goes on without it).
func createErr(dir string, names []string) (*Writer, error) {
	d, err := Lock(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Create(names)
}

func create(t *testing.T, dir string, names []string) *Writer {
	t.Helper()
	w, err := createErr(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// ownedOutputs writes dir's run.json as an earlier run that wrote
// OutputFiles leaves it: without it, the files are the user's, which a
// run refuses to replace.
func ownedOutputs(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, dir, ManifestFile, `{"format": "`+ManifestFormat+`", "files": ["summary.json", "timeseries.csv", "events.jsonl"], "partial": false}`)
}

// commit commits a summary of scenario "x".
func commit(w *Writer) error {
	_, err := w.Commit(&sim.Summary{Scenario: "x"}, nil)
	return err
}

func TestOutputsAreAtomic(t *testing.T) {
	dir := t.TempDir()
	ownedOutputs(t, dir) // an earlier run's, so that the run may replace them
	for _, name := range OutputFiles {
		writeFile(t, dir, name, "old")
	}
	check := func(when string) {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(OutputFiles)+1 { // and the earlier run.json
			t.Errorf("%s: %d entries in the output directory, want %d", when, len(entries), len(OutputFiles)+1)
		}
		for _, name := range OutputFiles {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "old" {
				t.Errorf("%s: %s = %q, want the old file", when, name, b)
			}
		}
	}

	o := create(t, dir, OutputFiles)
	o.Abort()
	o.Abort()
	check("after abort")

	o = create(t, dir, OutputFiles)
	os.RemoveAll(o.tmp) // the renames will fail
	if err := commit(o); err == nil {
		t.Error("commit succeeded without its files")
	}
	check("after a failed commit")

	o = create(t, dir, OutputFiles)
	if err := commit(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, SummaryFile)); !strings.Contains(string(b), `"scenario": "x"`) {
		t.Errorf("summary.json = %s", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(OutputFiles)+1 {
		t.Errorf("%d entries after commit, want %d (the files and run.json, no temporary directory left)", len(entries), len(OutputFiles)+1)
	}

	if _, err := Lock(filepath.Join(dir, SummaryFile)); err == nil || !strings.Contains(err.Error(), "creating output directory") {
		t.Errorf("an output directory that is a file: err = %v", err)
	}
}

// TestOutputsCheckDestinations checks that an output file that a rename
// cannot replace (a directory) is refused before anything is renamed.
func TestOutputsCheckDestinations(t *testing.T) {
	dir := t.TempDir()
	ownedOutputs(t, dir) // an earlier run's, so that the run may replace them
	for _, name := range OutputFiles {
		writeFile(t, dir, name, "old")
	}
	check := func(when string, names ...string) {
		t.Helper()
		for _, name := range names {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "old" {
				t.Errorf("%s: %s = %q, want the old file", when, name, b)
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".dspalab-tmp-") {
				t.Errorf("%s: temporary directory %s left", when, e.Name())
			}
		}
	}

	// Found when the outputs are opened, before the run.
	os.Remove(filepath.Join(dir, TimeseriesFile))
	if err := os.MkdirAll(filepath.Join(dir, TimeseriesFile, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := createErr(dir, OutputFiles)
	if want := filepath.Join(dir, TimeseriesFile) + " is a directory, not a file; nothing was replaced"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("openOutputFiles = %v, want %q", err, want)
	}
	check("refused at open", SummaryFile, EventsFile)

	// Found at commit, when the directory appeared during the run.
	os.RemoveAll(filepath.Join(dir, TimeseriesFile))
	writeFile(t, dir, TimeseriesFile, "old")
	o := create(t, dir, OutputFiles)
	os.Remove(filepath.Join(dir, EventsFile))
	if err := os.MkdirAll(filepath.Join(dir, EventsFile, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	err = commit(o)
	if want := filepath.Join(dir, EventsFile) + " is a directory"; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "mixes") {
		t.Errorf("commit = %v, want %q and nothing renamed", err, want)
	}
	check("refused at commit", SummaryFile, TimeseriesFile)

	// A symbolic link is not replaced either.
	os.RemoveAll(filepath.Join(dir, EventsFile))
	if err := os.Symlink("elsewhere", filepath.Join(dir, EventsFile)); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if _, err := createErr(dir, OutputFiles); err == nil || !strings.Contains(err.Error(), "is not a regular file (a symbolic link)") {
		t.Errorf("openOutputFiles = %v, want a symbolic link refused", err)
	}
	check("symbolic link", SummaryFile, TimeseriesFile)
}

// A directory without run.json: a file of the user's named as an output
// is refused before the run, and kept; the outputs of a dspalab older
// than run.json (its summary.json is a dspalab summary) are replaced.
func TestCreateRefusesUserFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, SummaryFile, "my summary of the lecture")
	_, err := createErr(dir, OutputFiles)
	want := filepath.Join(dir, SummaryFile) + " was not written by a dspalab run (there is no " + filepath.Join(dir, ManifestFile) + "); it was not replaced, and nothing was run (move it away, or choose another --out)"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("a summary.json of the user's: err = %v, want %q", err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, SummaryFile)); string(b) != "my summary of the lecture" {
		t.Errorf("the user's summary.json is now %q", b)
	}

	older := t.TempDir()
	writeFile(t, older, SummaryFile, `{"scenario": "x", "partial": false, "totals": {"emitted": 1}}`)
	writeFile(t, older, TimeseriesFile, "old")
	o := create(t, older, OutputFiles)
	if err := commit(o); err != nil {
		t.Fatalf("the outputs of an older dspalab: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(older, TimeseriesFile)); string(b) == "old" {
		t.Errorf("timeseries.csv of the older run was not replaced")
	}
}

// A complete run in DIR/partial (run --out DIR/partial) is not the
// partial outputs a newer run in DIR replaces: it is kept.
func TestCompleteRunInPartialIsKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, PartialDir)
	if err := os.Mkdir(p, 0o777); err != nil {
		t.Fatal(err)
	}
	ownedOutputs(t, p) // a complete run's run.json ("partial": false)
	writeFile(t, p, SummaryFile, "kept")
	o := create(t, dir, OutputFiles)
	if err := commit(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(p, SummaryFile)); string(b) != "kept" {
		t.Errorf("the complete run in partial/ was removed: summary.json %q", b)
	}
}

// TestStaleTemporaryDirectoriesRemoved: a run killed before it could clean
// up (a second Ctrl-C, SIGKILL) leaves its temporary directory; the next
// run into the directory, holding its lock, removes it. A temporary file
// of the same prefix (atomicfile's) and the user's files stay.
func TestStaleTemporaryDirectoriesRemoved(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, tmpPrefix+"123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, stale, TimeseriesFile, "time_s\n1\n")
	writeFile(t, stale, SummaryFile, "")
	file := writeFile(t, dir, tmpPrefix+"abc", "a file being written")
	mine := writeFile(t, dir, "notes.txt", "mine")
	// directories of the user's with the prefix: not digits, another
	// mode, a file that is not a run's, a directory inside
	var kept []string
	for _, c := range []struct {
		name string
		mode os.FileMode
		file string
	}{{"mydir", 0o700, TimeseriesFile}, {"456", 0o755, TimeseriesFile}, {"789", 0o700, "notes.txt"}, {"321", 0o700, ""}} {
		p := filepath.Join(dir, tmpPrefix+c.name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if c.file != "" {
			writeFile(t, p, c.file, "mine")
		} else if err := os.Mkdir(filepath.Join(p, "deep"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, c.mode); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p)
	}
	d, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.held {
		t.Skip("no flock on this file system: stale directories are kept")
	}
	w, err := d.Create(OutputFiles)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary directory is still there (%v)", err)
	}
	if !isStale(w.tmp, filepath.Base(w.tmp)) {
		t.Errorf("a run's own temporary directory %s is not recognised as one", w.tmp)
	}
	for _, p := range append([]string{file, mine, w.tmp}, kept...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want it kept", p, err)
		}
	}
}
