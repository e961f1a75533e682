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

// shardOutput is one shard's files as read.
type shardOutput struct {
	dir      string
	manifest Manifest
	shard    Shard
	header   []string
	rows     [][]string
}

// Merge joins the outputs of the shards of one sweep into OutDir: the rows
// of every shard in run order, and a manifest of the whole sweep. The
// result is byte for byte what the sweep run on one machine writes. It
// returns an error, writing nothing, unless the shards are all of one
// sweep (the same scenario text, parameters, seeds and dspalab version),
// complete (not interrupted, every run of the shard present once), and
// together every shard from 0 to N-1 once.
func Merge(opts MergeOptions) error {
	if len(opts.Dirs) == 0 {
		return errors.New("sweep merge: no shard directories given")
	}
	if opts.OutDir == "" {
		return errors.New("sweep merge: no output directory (--out DIR)")
	}
	outAbs, _ := filepath.Abs(opts.OutDir)
	var shards []*shardOutput
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
	all := make([][]string, first.manifest.Runs)
	for _, s := range shards {
		for _, row := range s.rows {
			r, _ := strconv.Atoi(row[0]) // checked by readShard
			if r >= len(all) {
				return fmt.Errorf("sweep merge: %s: run %d is past the %d runs of the sweep", s.dir, r, len(all))
			}
			all[r] = row
		}
	}
	m := first.manifest
	m.Shard = Shard{0, 1}.String()
	m.ShardRuns, m.CompletedRuns, m.Partial = m.Runs, m.Runs, false
	var descs []string
	m.PartialRuns, descs = partialRuns(first.header, all)
	csvData, err := encodeCSV(first.header, all)
	if err != nil {
		return fmt.Errorf("sweep merge: %w", err)
	}
	if err := os.MkdirAll(opts.OutDir, 0o777); err != nil {
		return fmt.Errorf("sweep merge: creating output directory: %w", err)
	}
	if err := writeFiles(opts.OutDir, csvData, &m); err != nil {
		return fmt.Errorf("sweep merge: %w", err)
	}
	if opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "wrote %s, %s: %s from %s\n",
			filepath.Join(opts.OutDir, runfiles.SweepFile), filepath.Join(opts.OutDir, runfiles.SweepManifestFile), plural(m.Runs, "run"), plural(n, "shard"))
	}
	if len(descs) > 0 {
		return &PartialRunsError{Runs: descs, Total: m.Runs}
	}
	return nil
}

// readShard reads and checks the files of one shard.
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
	s := &shardOutput{dir: dir}
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
		return nil, fmt.Errorf("sweep merge: %s holds a sweep that was interrupted (%d of %s); run shard %s again", dir, m.CompletedRuns, plural(m.ShardRuns, "run"), m.Shard)
	}
	f, err := regfile.Open(filepath.Join(dir, runfiles.SweepFile))
	if err != nil {
		return nil, fmt.Errorf("sweep merge: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(regfile.LimitLines(f, filepath.Join(dir, runfiles.SweepFile), regfile.MaxLine))
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("sweep merge: %s: %w", filepath.Join(dir, runfiles.SweepFile), err)
	}
	if len(recs) == 0 || len(recs[0]) == 0 || recs[0][0] != runfiles.SweepRunColumn {
		return nil, fmt.Errorf("sweep merge: %s is not a sweep's CSV (its first column is not %q)", filepath.Join(dir, runfiles.SweepFile), runfiles.SweepRunColumn)
	}
	s.header, s.rows = recs[0], recs[1:]
	if len(s.rows) != m.ShardRuns {
		return nil, fmt.Errorf("sweep merge: %s has %s, its %s says %d", filepath.Join(dir, runfiles.SweepFile), plural(len(s.rows), "run"), runfiles.SweepManifestFile, m.ShardRuns)
	}
	seen := map[int]bool{}
	for _, row := range s.rows {
		i, err := strconv.Atoi(row[0])
		if err != nil || i < 0 || !s.shard.Has(i) || seen[i] {
			return nil, fmt.Errorf("sweep merge: %s: run %q does not belong to shard %s, or appears twice", filepath.Join(dir, runfiles.SweepFile), row[0], m.Shard)
		}
		seen[i] = true
	}
	return s, nil
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
