package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/atomicfile"
	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/internal/runfiles"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Dirs are the output directories of the shards (each holding
	// sweep.csv and sweep.json), in any order.
	Dirs []string
	// OutDir receives the merged sweep.csv and sweep.json; it must not
	// be one of Dirs.
	OutDir string
	// Stderr receives the closing line; nil discards.
	Stderr io.Writer
}

// shardOutput is one shard: its manifest and the header of its
// sweep.csv, read and checked before any row is copied, and the reader of
// its rows, read one at a time by Merge.
type shardOutput struct {
	dir      string
	manifest Manifest
	shard    Shard
	header   []string
	csvPath  string
	f        *os.File
	rows     *csv.Reader
	read     int // rows read
}

// Merge joins the outputs of the shards of one sweep into OutDir: the rows
// of every shard in run order, and a manifest of the whole sweep. The
// result is byte for byte what the sweep run on one machine writes. It
// returns an error, writing nothing, unless the shards are all of one
// sweep (the same scenario text, parameters, seeds and dspalab version),
// complete (not interrupted, every run of the shard present once, in run
// order as sweep writes them), and together every shard from 0 to N-1
// once.
//
// Memory does not grow with the runs: the manifests and headers are read
// and compared first, then the rows are copied in run order, one at a
// time, run r from shard r mod N (the shards' sweep.csv files read line by
// line, each line at most regfile.MaxLine), into the merged sweep.csv;
// the merged sweep.json, which lists the partial runs, is written last.
func Merge(opts MergeOptions) error {
	if len(opts.Dirs) == 0 {
		return errors.New("sweep merge: no shard directories given")
	}
	if opts.OutDir == "" {
		return errors.New("sweep merge: no output directory (--out DIR)")
	}
	outAbs, _ := filepath.Abs(opts.OutDir)
	var shards []*shardOutput
	defer func() {
		for _, s := range shards {
			s.f.Close()
		}
	}()
	for _, dir := range opts.Dirs {
		if abs, _ := filepath.Abs(dir); abs == outAbs {
			return fmt.Errorf("sweep merge: the output directory %s is also a shard; write the merged files elsewhere", dir)
		}
		s, err := readShard(dir)
		if err != nil {
			return err
		}
		shards = append(shards, s)
	}
	slices.SortStableFunc(shards, func(a, b *shardOutput) int { return a.shard.Index - b.shard.Index })
	first := shards[0]
	n := first.shard.Count
	for _, s := range shards {
		if err := sameSweep(first, s); err != nil {
			return err
		}
	}
	seen := map[int]string{}
	for _, s := range shards {
		if d, ok := seen[s.shard.Index]; ok {
			return fmt.Errorf("sweep merge: %s and %s are both shard %s", d, s.dir, s.shard)
		}
		seen[s.shard.Index] = s.dir
	}
	var missing []string
	for i := range n {
		if _, ok := seen[i]; !ok {
			missing = append(missing, Shard{i, n}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("sweep merge: shards %s are missing (%d of %d given)", strings.Join(missing, ", "), len(shards), n)
	}
	m := first.manifest
	m.Shard = Shard{0, 1}.String()
	m.ShardRuns, m.CompletedRuns, m.Partial = m.Runs, m.Runs, false
	m.PartialRuns = []int{}
	var descs []string
	if err := os.MkdirAll(opts.OutDir, 0o777); err != nil {
		return fmt.Errorf("sweep merge: creating output directory: %w", err)
	}
	o := &outputs{dir: opts.OutDir}
	if err := o.check(); err != nil {
		return fmt.Errorf("sweep merge: %w", err)
	}
	err := atomicfile.Write(o.path(runfiles.SweepFile), func(f io.Writer) error {
		w := csv.NewWriter(f)
		if err := w.Write(first.header); err != nil {
			return err
		}
		for r := range m.Runs {
			// shards are sorted by index and all present: shard r mod n
			row, err := shards[r%n].next(r)
			if err != nil {
				return err
			}
			if err := w.Write(row); err != nil {
				return err
			}
			runs, d := partialRuns(first.header, [][]string{row})
			m.PartialRuns, descs = append(m.PartialRuns, runs...), append(descs, d...)
		}
		for _, s := range shards {
			if err := s.end(); err != nil {
				return err
			}
		}
		w.Flush()
		return w.Error()
	})
	if err != nil {
		var me *mergeError
		if errors.As(err, &me) {
			return me
		}
		return fmt.Errorf("sweep merge: writing outputs: %w", err)
	}
	manifest, err := encodeManifest(&m)
	if err == nil {
		err = writeAtomic(o.path(runfiles.SweepManifestFile), manifest)
	}
	if err != nil {
		return fmt.Errorf("sweep merge: writing outputs: %w", err)
	}
	if opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "wrote %s, %s: %s from %s\n",
			filepath.Join(opts.OutDir, runfiles.SweepFile), filepath.Join(opts.OutDir, runfiles.SweepManifestFile), plural.Count(m.Runs, "run"), plural.Count(n, "shard"))
	}
	if len(descs) > 0 {
		return &PartialRunsError{Runs: descs, Total: m.Runs}
	}
	return nil
}

// mergeError is a shard's row that Merge refuses, told apart from a
// failure to write the merged file.
type mergeError struct{ msg string }

func (e *mergeError) Error() string { return e.msg }

// readShard reads and checks the manifest of one shard and opens its
// sweep.csv, reading its header; Merge reads the rows.
func readShard(dir string) (*shardOutput, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("sweep merge: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sweep merge: %s is not a directory: give the --out directories of the shards", dir)
	}
	mdata, err := regfile.ReadFile(filepath.Join(dir, runfiles.SweepManifestFile), maxManifestBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("sweep merge: %s has no %s: is it the --out directory of a sweep?", dir, runfiles.SweepManifestFile)
		}
		return nil, fmt.Errorf("sweep merge: %w", err)
	}
	s := &shardOutput{dir: dir, csvPath: filepath.Join(dir, runfiles.SweepFile)}
	dec := json.NewDecoder(bytes.NewReader(mdata))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.manifest); err != nil {
		return nil, fmt.Errorf("sweep merge: %s: %v", filepath.Join(dir, runfiles.SweepManifestFile), err)
	}
	m := &s.manifest
	if s.shard, err = ParseShard(m.Shard); err != nil {
		return nil, fmt.Errorf("sweep merge: %s: bad shard: %v", filepath.Join(dir, runfiles.SweepManifestFile), err)
	}
	if m.Partial || m.CompletedRuns != m.ShardRuns {
		return nil, fmt.Errorf("sweep merge: %s holds a sweep that was interrupted (%d of %s); run shard %s again", dir, m.CompletedRuns, plural.Count(m.ShardRuns, "run"), m.Shard)
	}
	if s.f, err = regfile.Open(s.csvPath); err != nil {
		return nil, fmt.Errorf("sweep merge: %w", err)
	}
	s.rows = csv.NewReader(regfile.LimitLines(s.f, s.csvPath, regfile.MaxLine))
	s.rows.ReuseRecord = true
	header, err := s.rows.Read()
	if err != nil && err != io.EOF {
		s.f.Close()
		return nil, fmt.Errorf("sweep merge: %s: %w", s.csvPath, err)
	}
	if len(header) == 0 || header[0] != runfiles.SweepRunColumn {
		s.f.Close()
		return nil, fmt.Errorf("sweep merge: %s is not a sweep's CSV (its first column is not %q)", s.csvPath, runfiles.SweepRunColumn)
	}
	s.header = slices.Clone(header)
	s.rows.FieldsPerRecord = len(header)
	return s, nil
}

// next reads the shard's next row, which must be run r's. The row is
// valid until the next call.
func (s *shardOutput) next(r int) ([]string, error) {
	row, err := s.rows.Read()
	if err == io.EOF {
		return nil, s.countErr()
	}
	if err != nil {
		return nil, &mergeError{fmt.Sprintf("sweep merge: %s: %v", s.csvPath, err)}
	}
	s.read++
	if row[0] != strconv.Itoa(r) {
		line, _ := s.rows.FieldPos(0)
		return nil, &mergeError{fmt.Sprintf("sweep merge: %s:%d: run %q where run %d was due: a shard's rows are its runs in order, each once (shard %s)", s.csvPath, line, row[0], r, s.manifest.Shard)}
	}
	return row, nil
}

// end checks that the shard has no row left and as many as its manifest
// says.
func (s *shardOutput) end() error {
	row, err := s.rows.Read()
	if err == nil {
		line, _ := s.rows.FieldPos(0)
		return &mergeError{fmt.Sprintf("sweep merge: %s:%d: run %q is past the %d runs of the sweep", s.csvPath, line, row[0], s.manifest.Runs)}
	}
	if err != io.EOF {
		return &mergeError{fmt.Sprintf("sweep merge: %s: %v", s.csvPath, err)}
	}
	if s.read != s.manifest.ShardRuns {
		return s.countErr()
	}
	return nil
}

// countErr says that the shard's rows are not as many as its manifest
// says.
func (s *shardOutput) countErr() error {
	return &mergeError{fmt.Sprintf("sweep merge: %s has %s, its %s says %d", s.csvPath, plural.Count(s.read, "run"), runfiles.SweepManifestFile, s.manifest.ShardRuns)}
}

// sameSweep checks that shard b is of the same sweep as shard a.
func sameSweep(a, b *shardOutput) error {
	ma, mb := a.manifest, b.manifest
	differ := func(what string) error {
		return fmt.Errorf("sweep merge: %s and %s are shards of different sweeps (%s differ)", a.dir, b.dir, what)
	}
	pa, _ := json.Marshal(ma.Parameters)
	pb, _ := json.Marshal(mb.Parameters)
	switch {
	case ma.ScenarioSHA256 != mb.ScenarioSHA256:
		return differ("the scenarios")
	case !bytes.Equal(pa, pb):
		return differ("the parameters")
	case ma.Seeds != mb.Seeds || ma.FirstSeed != mb.FirstSeed:
		return differ("the seeds")
	case ma.Runs != mb.Runs:
		return differ("the numbers of runs")
	case !slices.Equal(ma.Data, mb.Data):
		return differ(fmt.Sprintf("the data the traces replay: %s against %s", strings.Join(ma.Data, "; "), strings.Join(mb.Data, "; ")))
	case a.shard.Count != b.shard.Count:
		return fmt.Errorf("sweep merge: %s is shard %s and %s is shard %s: not the same number of shards", a.dir, ma.Shard, b.dir, mb.Shard)
	case ma.Version != mb.Version:
		return differ(fmt.Sprintf("dspalab versions %s and %s", ma.Version, mb.Version))
	case !slices.Equal(a.header, b.header):
		return differ("the columns of " + runfiles.SweepFile)
	}
	return nil
}
