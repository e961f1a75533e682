package runfiles

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/atomicfile"
	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/sim"
)

// ManifestFormat is the "format" of every run.json dspalab writes: a
// run.json without it is not dspalab's, and is never replaced.
const ManifestFormat = "dspalab run outputs"

// Manifest is run.json: what a run wrote into its directory.
type Manifest struct {
	Format string `json:"format"` // ManifestFormat
	// Files are the files of the run, in the order of Names.
	Files []string `json:"files"`
	// Partial is true when the run stopped before its end (as
	// summary.json's partial).
	Partial bool `json:"partial"`
}

// Dir is an output directory held by one writer: Lock takes an exclusive
// lock on it (flock on the directory), so that two dspalab commands
// writing into one directory do not mix their files; the second is
// refused at once. Close releases it.
type Dir struct {
	path string
	lock *os.File
	held bool // the flock was taken (not a file system without flock)
}

// BusyError is an output directory that another dspalab command holds.
type BusyError struct{ Dir string }

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is being written by another dspalab command; nothing was written (wait for it to finish, or choose another --out)", e.Dir)
}

// Lock creates dir if missing and locks it for the caller until Close. It
// returns a *BusyError when another process holds the lock.
func Lock(dir string) (*Dir, error) {
	if err := regfile.DanglingLink(strings.TrimRight(dir, `/`+string(filepath.Separator))); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("writing outputs: %s is not a directory", dir)
	}
	busy, held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking output directory %s: %w", dir, err)
	}
	if busy {
		f.Close()
		return nil, &BusyError{Dir: dir}
	}
	return &Dir{path: dir, lock: f, held: held}, nil
}

// tmpPrefix begins the name of a run's temporary directory inside its
// output directory (Create).
const tmpPrefix = ".dspalab-tmp-"

// removeStale removes the temporary directories that runs killed before
// they could clean up left in d (a second Ctrl-C, a SIGKILL, a crash).
// Only while d's lock is held (no other dspalab writes there then), and
// only a directory exactly as Create makes it (isStale): a directory of
// the user's that happens to have the prefix, or holds anything else, is
// kept. The temporary files of atomicfile, of the same prefix, are files
// and are left alone.
func (d *Dir) removeStale() {
	if !d.held {
		return
	}
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range entries {
		if p := filepath.Join(d.path, e.Name()); e.IsDir() && isStale(p, e.Name()) {
			os.RemoveAll(p) // best effort
		}
	}
}

// isStale reports whether the directory p (named name) is a run's
// temporary directory as Create makes it: tmpPrefix and os.MkdirTemp's
// digits, mode 0700, holding only regular files named as a run's files
// (Names, MicroBatchNames), nothing nested.
func isStale(p, name string) bool {
	digits := strings.TrimPrefix(name, tmpPrefix)
	if digits == name || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return false
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return false
	}
	known := append(slices.Clone(OutputFiles), optionalFiles...)
	for _, e := range entries {
		if !e.Type().IsRegular() || !slices.Contains(known, e.Name()) {
			return false
		}
	}
	return true
}

// Path returns the directory's path, as given to Lock.
func (d *Dir) Path() string { return d.path }

// Close releases the lock. It is safe to call more than once.
func (d *Dir) Close() error {
	if d == nil || d.lock == nil {
		return nil
	}
	err := d.lock.Close() // closing the descriptor releases the flock
	d.lock = nil
	return err
}

// Writer writes a run's files into a temporary directory inside the
// output directory, while the run goes on (Observer), and moves them over
// the old ones only when all are complete (Commit); Abort removes them and
// leaves the old files as they were.
type Writer struct {
	dir     *Dir
	tmp     string   // the temporary directory inside dir
	names   []string // the files written
	files   map[string]*os.File
	ts, ev  *bufio.Writer
	parts   *bufio.Writer // PartitionsFile, nil without it
	obs     *fileObserver
	removed bool
}

// Create starts the files names (see Names) of a run in a temporary
// directory inside d. It refuses, before anything is simulated, an output
// directory where one of the files could not be replaced (see
// checkDestinations).
func (d *Dir) Create(names []string) (*Writer, error) {
	if _, err := checkDestinations(d.path, names, "nothing was run"); err != nil {
		return nil, err
	}
	d.removeStale()
	tmp, err := os.MkdirTemp(d.path, tmpPrefix)
	if err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	w := &Writer{dir: d, tmp: tmp, names: names, files: map[string]*os.File{}}
	for _, name := range names {
		f, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("writing outputs: %w", err)
		}
		w.files[name] = f
	}
	w.ts = bufio.NewWriterSize(w.files[TimeseriesFile], 64<<10)
	w.ev = bufio.NewWriterSize(w.files[EventsFile], 64<<10)
	w.obs = &fileObserver{StreamWriter: sim.NewStreamWriter(w.ts, w.ev)}
	if f := w.files[PartitionsFile]; f != nil {
		w.parts = bufio.NewWriterSize(f, 64<<10)
		w.obs.WritePartitions(w.parts)
	}
	if ck, sub := w.files[CheckpointsFile], w.files[CheckpointSubtasksFile]; ck != nil && sub != nil {
		if err := w.obs.startCheckpoints(ck, sub); err != nil {
			w.Abort()
			return nil, fmt.Errorf("writing outputs: %w", err)
		}
	}
	return w, nil
}

// Observer returns the sim.Observer (and sim.CheckpointObserver) that
// writes the samples, events and checkpoints as the run goes on.
func (w *Writer) Observer() sim.Observer { return w.obs }

// fileObserver is the sim.Observer that writes the files while the run
// goes on: samples and events through a sim.StreamWriter, and, as a
// sim.CheckpointObserver, each checkpoint as it ends into checkpoints.csv
// and its subtasks into checkpoint_subtasks.csv. Nothing is kept once
// written, so memory does not grow with the length of the run.
type fileObserver struct {
	*sim.StreamWriter
	ckpt, sub *bufio.Writer // nil without checkpointing
	subCSV    *csv.Writer
	row       bytes.Buffer // one row of checkpoints.csv being formatted
	err       error
}

// Checkpoint implements sim.CheckpointObserver.
func (o *fileObserver) Checkpoint(c *sim.CheckpointStats) {
	if o.ckpt == nil || o.err != nil {
		return
	}
	// sim formats checkpoints.csv rows only as a whole file: format a file
	// of this one row and keep the row, without the header line.
	row := *c
	row.SubtaskStats = nil
	o.row.Reset()
	if o.err = sim.WriteCheckpointsCSV(&o.row, []sim.CheckpointStats{row}); o.err != nil {
		return
	}
	_, line, _ := bytes.Cut(o.row.Bytes(), []byte("\n"))
	if _, o.err = o.ckpt.Write(line); o.err != nil {
		return
	}
	o.err = sim.WriteCheckpointSubtaskRows(o.subCSV, c)
}

// startCheckpoints writes the headers of the checkpoint files: a run in
// which no checkpoint ends still gets them, with no rows.
func (o *fileObserver) startCheckpoints(ckpt, sub *os.File) error {
	o.ckpt = bufio.NewWriterSize(ckpt, 16<<10)
	o.sub = bufio.NewWriterSize(sub, 64<<10)
	o.subCSV = csv.NewWriter(o.sub)
	hw := csv.NewWriter(o.ckpt)
	if err := hw.Write(sim.CheckpointColumns); err != nil {
		return err
	}
	hw.Flush()
	if err := hw.Error(); err != nil {
		return err
	}
	return o.subCSV.Write(sim.CheckpointSubtaskColumns)
}

// flush flushes what is buffered and returns the first error seen.
func (o *fileObserver) flush() error {
	err := o.StreamWriter.Flush()
	if err == nil {
		err = o.err
	}
	if o.ckpt != nil && err == nil {
		o.subCSV.Flush()
		if err = o.subCSV.Error(); err == nil {
			err = o.sub.Flush()
		}
		if err == nil {
			err = o.ckpt.Flush()
		}
	}
	return err
}

// Commit finishes the files with the summary sum and, if ActionsFile is
// among them, the actions, and moves them into the output directory:
// timeseries.csv, events.jsonl, the optional files, summary.json, then
// run.json (the manifest) last. Files of an earlier run that this one
// does not write are removed only when that run's manifest lists them:
// a file dspalab did not write is never removed.
//
// A partial run (sum.Partial: stopped before its end, whatever stopped
// it: Ctrl-C, the live view's q, a limit, a trace or the job failing)
// never replaces a complete run (HoldsComplete): that run is kept and the
// files go to PartialDir inside the directory instead. Commit returns the
// directory the files went to.
//
// On error it removes what it wrote; the old files are then untouched
// unless a rename failed half-way, which only an unexpected failure of
// the file system can cause (reported in the error; run.json is then
// still the old one, or missing).
func (w *Writer) Commit(sum *sim.Summary, actions []sim.Action) (string, error) {
	return w.commit(func(f io.Writer) error { return sim.WriteSummaryJSON(f, sum) }, sum.Partial, actions)
}

// File returns the file name of w (one of the names given to Create)
// for an engine that writes its own rows (a micro-batch run writes
// timeseries.csv, events.jsonl and batches.csv so, and no sim.Observer);
// nil for a name w does not write.
func (w *Writer) File(name string) io.Writer {
	switch name {
	case TimeseriesFile:
		return w.ts
	case EventsFile:
		return w.ev
	}
	if f, ok := w.files[name]; ok {
		return f
	}
	return nil
}

// CommitSummary is Commit for a run whose summary.json another engine
// writes (writeSummary), partial as that summary says, with its actions;
// a partial one keeps a complete run as Commit does.
func (w *Writer) CommitSummary(writeSummary func(io.Writer) error, partial bool, actions []sim.Action) (string, error) {
	return w.commit(writeSummary, partial, actions)
}

func (w *Writer) commit(writeSummary func(io.Writer) error, partial bool, actions []sim.Action) (string, error) {
	err := w.obs.flush()
	if err == nil {
		err = w.ts.Flush()
	}
	if err == nil {
		err = w.ev.Flush()
	}
	if err == nil && w.parts != nil {
		err = w.parts.Flush()
	}
	if f := w.files[ActionsFile]; err == nil && f != nil {
		err = WriteActions(f, actions)
	}
	if err == nil {
		err = writeSummary(w.files[SummaryFile])
	}
	for _, name := range w.names {
		f := w.files[name]
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	w.files = nil
	if err != nil {
		w.Abort()
		return "", fmt.Errorf("writing outputs: %w", err)
	}
	target := w.dir.path
	if partial && HoldsComplete(target) {
		target = filepath.Join(target, PartialDir)
		if err := os.Mkdir(target, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			w.Abort()
			return "", fmt.Errorf("writing outputs: %w", err)
		}
		if fi, err := os.Lstat(target); err != nil || !fi.IsDir() {
			w.Abort()
			return "", fmt.Errorf("writing outputs: %s is not a directory; it was not replaced, and the partial outputs were not written (the complete run in %s was kept; move %s away, or choose another --out)", target, w.dir.path, target)
		}
	}
	what := "the outputs were not written"
	if partial {
		what = "the partial outputs were not written"
	}
	old, err := checkDestinations(target, w.names, what)
	if err != nil {
		w.Abort()
		return "", err
	}
	m := &Manifest{Format: ManifestFormat, Files: w.names, Partial: partial}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		w.Abort()
		return "", fmt.Errorf("writing outputs: %w", err)
	}
	order := []string{TimeseriesFile, EventsFile}
	for _, extra := range optionalFiles {
		if slices.Contains(w.names, extra) {
			order = append(order, extra)
		}
	}
	order = append(order, SummaryFile)
	for i, name := range order {
		if err := os.Rename(filepath.Join(w.tmp, name), filepath.Join(target, name)); err != nil {
			w.Abort()
			if i > 0 {
				return "", fmt.Errorf("writing outputs: %w (the output directory now mixes new and old files; %s is not the new one)", err, ManifestFile)
			}
			return "", fmt.Errorf("writing outputs: %w", err)
		}
	}
	w.removeStale(target, old)
	if err := atomicfile.Write(filepath.Join(target, ManifestFile), func(f io.Writer) error {
		_, err := f.Write(append(data, '\n'))
		return err
	}); err != nil {
		w.Abort()
		return "", fmt.Errorf("writing outputs: %w (the new files are in place, but %s is not the new one)", err, ManifestFile)
	}
	if target == w.dir.path {
		removePartial(target)
	}
	w.Abort() // removes the now empty temporary directory
	return target, nil
}

// removePartial removes dir/PartialDir, the outputs of a partial run
// that a complete run in dir kept, now that a newer run holds dir: the
// files its manifest lists and the manifest, regular files only, then the
// directory if that emptied it. A partial/ that dspalab did not write (no
// manifest of a dspalab run) is left as it is, as is anything else in it,
// and so are a partial that is a symbolic link (to another run, say) and
// one that holds a complete run (run --out DIR/partial).
func removePartial(dir string) {
	p := filepath.Join(dir, PartialDir)
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		return // not there, or a link: what it points to is not this run's
	}
	m, err := readManifest(p)
	if err != nil || m == nil || !m.Partial {
		return // not dspalab's, or a complete run someone put there
	}
	for _, name := range append(slices.Clone(m.Files), ManifestFile) {
		if !slices.Contains(OwnedNames(), name) || name == PartialDir {
			continue // a manifest names only dspalab's files
		}
		f := filepath.Join(p, name)
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			os.Remove(f)
		}
	}
	os.Remove(p) // only if empty
}

// checkDestinations makes sure that every output file of names in dir,
// and run.json, is missing or a regular file (CheckReplaceable), that a
// run.json there is dspalab's, and that the files of names already there
// are dspalab's (checkOwned). what ends the error: what was not done
// ("nothing was run"). It returns dir's manifest (nil without one).
func checkDestinations(dir string, names []string, what string) (*Manifest, error) {
	if err := CheckReplaceable(dir, append(slices.Clone(names), ManifestFile)); err != nil {
		return nil, err
	}
	old, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	return old, checkOwned(dir, names, old, what)
}

// checkOwned makes sure that the outputs replace only what an earlier run
// wrote into dir: every file of names already there must be listed by
// dir's manifest old. A file of the user's there (notes of their own
// called summary.json or timeseries.csv) is never overwritten: nothing is
// written then, and the error says why. A directory without a manifest
// whose summary.json is a dspalab summary holds the outputs of a dspalab
// older than run.json, and is replaced as before.
func checkOwned(dir string, names []string, old *Manifest, what string) error {
	if old == nil && olderRun(dir) {
		return nil
	}
	for _, name := range names {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if old == nil || !slices.Contains(old.Files, name) {
			why := filepath.Join(dir, ManifestFile) + " does not list it"
			if old == nil {
				why = "there is no " + filepath.Join(dir, ManifestFile)
			}
			return fmt.Errorf("writing outputs: %s was not written by a dspalab run (%s); it was not replaced, and %s (move it away, or choose another --out)", p, why, what)
		}
	}
	return nil
}

// olderRun reports whether dir's summary.json is a dspalab summary (it has
// the scenario, partial and totals fields every dspalab summary has).
func olderRun(dir string) bool {
	s := readSummaryHead(dir)
	return s != nil && s.Scenario != nil && s.Partial != nil && s.Totals != nil
}

// CheckReplaceable makes sure that each of the files names in dir is
// either missing or a regular file, which a rename replaces: a directory
// (or anything else) of that name would make the rename fail, perhaps
// after others had succeeded. The error says that nothing was replaced.
func CheckReplaceable(dir string, names []string) error {
	for _, name := range names {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("writing outputs: %w", err)
		case fi.IsDir():
			return fmt.Errorf("writing outputs: %s is a directory, not a file; nothing was replaced (move it away or choose another --out)", p)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("writing outputs: %s is not a regular file (%s); nothing was replaced (move it away or choose another --out)", p, regfile.Kind(fi.Mode()))
		}
	}
	return nil
}

// maxManifestBytes bounds run.json: it lists a few file names.
const maxManifestBytes = 64 << 10

// readManifest reads dir's run.json: nil when there is none, an error
// when there is one dspalab did not write (which it would replace).
func readManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	data, err := regfile.ReadFile(p, maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var m Manifest
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil || m.Format != ManifestFormat {
		return nil, fmt.Errorf("writing outputs: %s is not the manifest of a dspalab run; nothing was replaced (move it away or choose another --out)", p)
	}
	return &m, nil
}

// HoldsComplete reports whether dir holds the outputs of a complete run:
// its manifest says so, or, without a manifest (a run of an older
// dspalab), its summary.json says partial: false.
func HoldsComplete(dir string) bool {
	m, err := readManifest(dir)
	if err != nil {
		return false
	}
	if m != nil {
		return !m.Partial && slices.Contains(m.Files, SummaryFile)
	}
	s := readSummaryHead(dir)
	return s != nil && s.Partial != nil && !*s.Partial
}

// summaryHead is the part of a summary.json that tells whether dspalab
// wrote it (the scenario, partial and totals every dspalab summary has)
// and whether the run was complete.
type summaryHead struct {
	Scenario *string        `json:"scenario"`
	Partial  *bool          `json:"partial"`
	Totals   map[string]any `json:"totals"`
}

// readSummaryHead reads dir's summary.json: nil when it cannot be read or
// is not JSON.
func readSummaryHead(dir string) *summaryHead {
	data, err := regfile.ReadFile(filepath.Join(dir, SummaryFile), MaxSummaryBytes)
	if err != nil {
		return nil
	}
	var s summaryHead
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	return &s
}

// removeStale removes, from target, the files that the earlier run of
// manifest old wrote and this run does not (the checkpoint files of a run
// with checkpoints, actions.jsonl of a live run), so that the directory
// holds one run's files only. Only regular files are removed, and only
// those old lists.
func (w *Writer) removeStale(target string, old *Manifest) {
	if old == nil {
		return
	}
	for _, name := range optionalFiles {
		if slices.Contains(w.names, name) || !slices.Contains(old.Files, name) {
			continue
		}
		p := filepath.Join(target, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			os.Remove(p)
		}
	}
}

// Abort closes and removes the temporary files. It is safe to call more
// than once.
func (w *Writer) Abort() {
	for _, f := range w.files {
		f.Close()
	}
	w.files = nil
	if !w.removed {
		w.removed = true
		os.RemoveAll(w.tmp)
	}
}
