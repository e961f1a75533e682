package sweep

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/dspalab/dspalab/internal/atomicfile"
	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/internal/runfiles"
)

// outputs writes sweep.csv and sweep.json into a directory: each into a
// temporary file first, moved into place once both are complete, sweep.json
// last (it says what sweep.csv holds).
type outputs struct {
	dir  string
	lock *runfiles.Dir // held from openOutputs to close
}

// maxManifestBytes bounds a sweep.json read: 16 MiB (it lists the swept
// values).
const maxManifestBytes = 16 << 20

// openOutputs creates dir if missing, locks it (runfiles.Lock: another
// dspalab command writing into it is refused), and checks, before
// anything runs, that its sweep.csv and sweep.json can be replaced. close
// releases the lock.
func openOutputs(dir string) (*outputs, error) {
	if dir == "" {
		return nil, errors.New("sweep: no output directory (--out DIR)")
	}
	lock, err := runfiles.Lock(dir)
	if err != nil {
		return nil, err
	}
	o := &outputs{dir: dir, lock: lock}
	if err := o.check(); err != nil {
		lock.Close()
		return nil, err
	}
	return o, nil
}

// close releases the output directory.
func (o *outputs) close() { o.lock.Close() }

// holdsComplete reports whether the directory holds the sweep.csv of a
// complete sweep: one whose sweep.json does not say it was interrupted
// (or that has no sweep.json that can be read).
func (o *outputs) holdsComplete() bool {
	if fi, err := os.Stat(o.path(runfiles.SweepFile)); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	data, err := regfile.ReadFile(o.path(runfiles.SweepManifestFile), maxManifestBytes)
	if err != nil {
		return true
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return true
	}
	return !m.Partial
}

// check makes sure each output file is missing or a regular file that a
// sweep wrote: a sweep.json (sweep.partial.json) a sweep manifest, a
// sweep.csv (sweep.partial.csv) a CSV whose header begins with the run
// column and has the seed column. A file of the user's of that name (notes of their own called
// sweep.csv) is refused, not replaced.
func (o *outputs) check() error {
	if err := runfiles.CheckReplaceable(o.dir, []string{runfiles.SweepFile, runfiles.SweepManifestFile, runfiles.SweepPartialFile, runfiles.SweepPartialManifestFile}); err != nil {
		return err
	}
	refuse := func(name, what string) error {
		return fmt.Errorf("writing outputs: %s is not %s; it was not replaced (move it away, or choose another --out)", o.path(name), what)
	}
	for _, name := range []string{runfiles.SweepManifestFile, runfiles.SweepPartialManifestFile} {
		data, err := regfile.ReadFile(o.path(name), maxManifestBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		var m struct {
			SHA *string `json:"scenario_sha256"`
		}
		if err != nil || json.Unmarshal(data, &m) != nil || m.SHA == nil {
			return refuse(name, "the manifest of a dspalab sweep")
		}
	}
	for _, name := range []string{runfiles.SweepFile, runfiles.SweepPartialFile} {
		f, err := regfile.Open(o.path(name)) // never blocks on a FIFO
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		var header []string
		if err == nil {
			// the header line only, bounded: a sweep's columns are
			// run, the parameters, seed, then the metrics
			r := csv.NewReader(io.LimitReader(f, maxHeaderBytes))
			header, err = r.Read()
			f.Close()
		}
		if err != nil || len(header) < 2 || header[0] != runfiles.SweepRunColumn || !slices.Contains(header, runfiles.SweepSeedColumn) {
			return refuse(name, "the table of a dspalab sweep (a header of run, the parameters, seed and the metrics)")
		}
	}
	return nil
}

// maxHeaderBytes bounds the header line of a sweep.csv that check reads.
const maxHeaderBytes = 1 << 20

func (o *outputs) path(name string) string { return filepath.Join(o.dir, name) }

// commit writes the CSV of rows and the manifest under the names given.
func (o *outputs) commit(csvName, manifestName string, rows *rowSpool, m *Manifest) error {
	return writeStreamed(o.dir, csvName, manifestName, rows.copyTo, m)
}

// encodeManifest writes m as indented JSON.
func encodeManifest(m *Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeStreamed writes the CSV that writeCSV writes and the manifest into
// dir under the names given, atomically, each through a temporary file in
// dir; the manifest last.
func writeStreamed(dir, csvName, manifestName string, writeCSV func(io.Writer) error, m *Manifest) error {
	manifest, err := encodeManifest(m)
	if err != nil {
		return fmt.Errorf("writing outputs: %w", err)
	}
	o := &outputs{dir: dir}
	if err := o.check(); err != nil {
		return err
	}
	if err := atomicfile.Write(o.path(csvName), writeCSV); err != nil {
		return fmt.Errorf("writing outputs: %w", err)
	}
	if err := writeAtomic(o.path(manifestName), manifest); err != nil {
		return fmt.Errorf("writing outputs: %w", err)
	}
	return nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over path.
func writeAtomic(path string, data []byte) error {
	return atomicfile.Write(path, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
}
