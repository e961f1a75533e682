package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/dspalab/dspalab/sim"
)

// Names of the files Run writes into Options.OutDir.
const (
	SummaryFile    = "summary.json"
	TimeseriesFile = "timeseries.csv"
	EventsFile     = "events.jsonl"
	// ActionsFile holds the actions of a live or replayed run, one JSON
	// sim.Action a line: what --replay reads.
	ActionsFile = "actions.jsonl"
	// CheckpointsFile holds one row per checkpoint (sim.CheckpointColumns)
	// of a scenario with checkpointing.
	CheckpointsFile = "checkpoints.csv"
)

// OutputFiles are the files Run writes into Options.OutDir, in order
// (and ActionsFile after them for a live or replayed run).
var OutputFiles = []string{SummaryFile, TimeseriesFile, EventsFile}

// renameOrder is the order in which commit moves the files into place:
// summary.json last, since it marks a complete output (ActionsFile, when
// written, goes just before it).
var renameOrder = []string{TimeseriesFile, EventsFile, SummaryFile}

// outputs writes a run's files into a temporary directory inside the
// output directory and moves them over the old ones only when all are
// complete (commit); abort removes them and leaves the old files as they
// were.
type outputs struct {
	dir     string       // the output directory
	tmp     string       // the temporary directory inside dir
	names   []string     // the files written
	actions []sim.Action // what commit writes into ActionsFile, if among names
	// checkpoints is what commit writes into CheckpointsFile, if among names
	checkpoints []sim.CheckpointStats
	files       map[string]*os.File
	ts, ev      *bufio.Writer
	writer      *sim.StreamWriter
	removed     bool
}

// outputNames are the files of a run: OutputFiles, ActionsFile for a live
// or replayed run, CheckpointsFile with checkpointing.
func outputNames(actions, checkpoints bool) []string {
	names := slices.Clone(OutputFiles)
	if actions {
		names = append(names, ActionsFile)
	}
	if checkpoints {
		names = append(names, CheckpointsFile)
	}
	return names
}

// openOutputFiles creates dir if missing, a temporary directory inside
// it, and the files names there (see outputNames). It refuses, before
// anything is simulated, an output directory where one of the files could
// not be replaced (see checkDestinations).
func openOutputFiles(dir string, names []string) (*outputs, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	if err := checkDestinations(dir, names); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, ".dspalab-tmp-")
	if err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	o := &outputs{dir: dir, tmp: tmp, names: names, files: map[string]*os.File{}}
	for _, name := range names {
		f, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			o.abort()
			return nil, fmt.Errorf("writing outputs: %w", err)
		}
		o.files[name] = f
	}
	o.ts = bufio.NewWriterSize(o.files[TimeseriesFile], 64<<10)
	o.ev = bufio.NewWriterSize(o.files[EventsFile], 64<<10)
	o.writer = sim.NewStreamWriter(o.ts, o.ev)
	return o, nil
}

// commit finishes the files with the summary, checks that each can replace
// the file of the same name in the output directory (checkDestinations),
// and moves them there, summary.json last. On error it removes what it
// wrote; the old files are then untouched unless a rename failed half-way,
// which only an unexpected failure of the file system can cause (reported
// in the error; summary.json is then still the old one, or missing).
func (o *outputs) commit(sum *sim.Summary) error {
	err := o.writer.Flush()
	if err == nil {
		err = o.ts.Flush()
	}
	if err == nil {
		err = o.ev.Flush()
	}
	if f := o.files[ActionsFile]; err == nil && f != nil {
		err = WriteActions(f, o.actions)
	}
	if f := o.files[CheckpointsFile]; err == nil && f != nil {
		err = sim.WriteCheckpointsCSV(f, o.checkpoints)
	}
	if err == nil {
		err = sim.WriteSummaryJSON(o.files[SummaryFile], sum)
	}
	for _, name := range o.names {
		f := o.files[name]
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	o.files = nil
	if err != nil {
		o.abort()
		return fmt.Errorf("writing outputs: %w", err)
	}
	if err := checkDestinations(o.dir, o.names); err != nil {
		o.abort()
		return err
	}
	order := slices.Clone(renameOrder)
	for _, extra := range []string{ActionsFile, CheckpointsFile} {
		if slices.Contains(o.names, extra) {
			order = slices.Insert(order, len(order)-1, extra) // before summary.json
		}
	}
	for i, name := range order {
		if name == SummaryFile {
			o.removeStale()
		}
		if err := os.Rename(filepath.Join(o.tmp, name), filepath.Join(o.dir, name)); err != nil {
			o.abort()
			if i > 0 {
				return fmt.Errorf("writing outputs: %w (the output directory now mixes new and old files; %s is not the new one)", err, SummaryFile)
			}
			return fmt.Errorf("writing outputs: %w", err)
		}
	}
	o.abort() // removes the now empty temporary directory
	return nil
}

// checkDestinations makes sure that every output file in dir is either
// missing or a regular file, which a rename replaces: a directory (or
// anything else) of that name would make the rename fail, perhaps after
// others had succeeded.
func checkDestinations(dir string, names []string) error {
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
			return fmt.Errorf("writing outputs: %s is not a regular file (%s); nothing was replaced (move it away or choose another --out)", p, kind(fi.Mode()))
		}
	}
	return nil
}

// kind names a file mode's type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}

// removeStale removes, from the output directory, the optional files of an
// earlier run that this run does not write (checkpoints.csv of a run with
// checkpoints, actions.jsonl of a live run), so that the directory holds
// one run's files only. Only regular files are removed.
func (o *outputs) removeStale() {
	for _, name := range []string{ActionsFile, CheckpointsFile} {
		if slices.Contains(o.names, name) {
			continue
		}
		p := filepath.Join(o.dir, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			os.Remove(p)
		}
	}
}

// abort closes and removes the temporary files. It is safe to call more
// than once.
func (o *outputs) abort() {
	for _, f := range o.files {
		f.Close()
	}
	o.files = nil
	if !o.removed {
		o.removed = true
		os.RemoveAll(o.tmp)
	}
}

// paths returns the output files as "dir/summary.json, dir/..." for the
// closing message.
func (o *outputs) paths() []string {
	var ps []string
	for _, name := range o.names {
		ps = append(ps, filepath.Join(o.dir, name))
	}
	return ps
}

var errNoResult = errors.New("the simulator returned no result")
