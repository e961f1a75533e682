package runner

import (
	"bufio"
	"bytes"
	"encoding/csv"
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
	// CheckpointsFile holds one row per checkpoint that ended
	// (sim.CheckpointColumns) of a scenario with checkpointing.
	CheckpointsFile = "checkpoints.csv"
	// CheckpointSubtasksFile holds one row per subtask that acknowledged a
	// checkpoint (sim.CheckpointSubtaskColumns), beside CheckpointsFile.
	CheckpointSubtasksFile = "checkpoint_subtasks.csv"
)

// optionalFiles are the files only some runs write: ActionsFile for a live
// or replayed run, the checkpoint files with checkpointing. commit moves
// them into place just before summary.json, and removes those of an
// earlier run that this one does not write.
var optionalFiles = []string{ActionsFile, CheckpointsFile, CheckpointSubtasksFile}

// OutputFiles are the files Run writes into Options.OutDir, in order
// (and optionalFiles after them: see outputNames).
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
	files   map[string]*os.File
	ts, ev  *bufio.Writer
	writer  *fileObserver
	removed bool
}

// outputNames are the files of a run: OutputFiles, ActionsFile for a live
// or replayed run, CheckpointsFile and CheckpointSubtasksFile with
// checkpointing.
func outputNames(actions, checkpoints bool) []string {
	names := slices.Clone(OutputFiles)
	if actions {
		names = append(names, ActionsFile)
	}
	if checkpoints {
		names = append(names, CheckpointsFile, CheckpointSubtasksFile)
	}
	return names
}

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
	o.writer = &fileObserver{StreamWriter: sim.NewStreamWriter(o.ts, o.ev)}
	if ck, sub := o.files[CheckpointsFile], o.files[CheckpointSubtasksFile]; ck != nil && sub != nil {
		if err := o.writer.startCheckpoints(ck, sub); err != nil {
			o.abort()
			return nil, fmt.Errorf("writing outputs: %w", err)
		}
	}
	return o, nil
}

// commit finishes the files with the summary, checks that each can replace
// the file of the same name in the output directory (checkDestinations),
// and moves them there, summary.json last. On error it removes what it
// wrote; the old files are then untouched unless a rename failed half-way,
// which only an unexpected failure of the file system can cause (reported
// in the error; summary.json is then still the old one, or missing).
func (o *outputs) commit(sum *sim.Summary) error {
	err := o.writer.flush()
	if err == nil {
		err = o.ts.Flush()
	}
	if err == nil {
		err = o.ev.Flush()
	}
	if f := o.files[ActionsFile]; err == nil && f != nil {
		err = WriteActions(f, o.actions)
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
	for _, extra := range optionalFiles {
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
// earlier run that this run does not write (the checkpoint files of a run
// with checkpoints, actions.jsonl of a live run), so that the directory
// holds one run's files only. Only regular files are removed.
func (o *outputs) removeStale() {
	for _, name := range optionalFiles {
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
