package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Env is where Resolve finds traces.
type Env struct {
	Registry *Registry
	Cache    Cache
	// BaseDir is the directory file traces are relative to: the scenario
	// file's ("" for the current directory).
	BaseDir string
	// NoData checks only the names (data sets, parts, columns, codes):
	// not whether the parts are cached or the files exist. The Replays
	// then have no files.
	NoData bool
}

// Replay is the resolved trace of one source of a scenario.
type Replay struct {
	Spec TraceSpec
	// What says what is replayed ("clusterdata-2011-2/task_events part
	// 1", "file rides.csv.gz"), From where it comes from ("the cache
	// (PATH)", "the embedded offline sample (...)", the file's PATH, or ""
	// when that is the file as the scenario names it), and Hint what to do
	// for more ("" or a command).
	What, From, Hint string
	// Rows is the number of rows the trace holds (in its window, before
	// filters) and Span the simulated time from its first to its last
	// row, when the registry knows them (0 otherwise).
	Rows int64
	Span des.Time
	// Origin says in a few words where the data comes from: "cache",
	// "embedded offline sample", "offline sample FILE" or "file PATH"
	// (for a record of the run, such as a sweep's).
	Origin string
	// Extent says what the data holds and how to get more, for a warning
	// when a run lasts longer than the trace ("the offline sample holds
	// the first 30 minutes of part 1; fetch the data set for more"), or "".
	Extent string
	// Lines is the number of lines the registry declares for the files
	// replayed (all rows, before the window too), or 0 if not known; a
	// reader that reads the whole trace can check it (Registry names the
	// registry that declares it).
	Lines    int64
	Registry string
}

// Rate returns the mean records per simulated second of the whole trace
// (all subtasks) when its rows and span are known, else 0. Filters are not
// counted, so it is an upper bound.
func (rp *Replay) Rate() float64 {
	if rp.Rows <= 0 || rp.Span <= 0 {
		return 0
	}
	return float64(rp.Rows) / rp.Span.Seconds()
}

// Resolve finds what each trace source of sc replays: a data set's parts
// from the cache (all of them cached), else its embedded offline sample
// (when it covers exactly the parts asked for), or a file relative to
// env.BaseDir. It checks the names against the registry: the data set
// (with a did-you-mean), the parts, the columns and the filter values
// (named codes). Problems come as a scenario.ErrorList located at the
// fields of the scenario file. Sources without a Trace are left out.
func Resolve(sc *scenario.Scenario, env Env) (map[string]*Replay, error) {
	out := map[string]*Replay{}
	var errs scenario.ErrorList
	for i, src := range sc.Sources {
		tr := src.Arrival.Trace
		if src.Arrival.Process != scenario.ArrivalTrace || tr == nil {
			continue
		}
		p := fmt.Sprintf("sources[%d].arrival.trace", i)
		fail := func(path, format string, a ...any) { errs = append(errs, sc.Errorf(path, format, a...)) }
		var rp *Replay
		if tr.Dataset != "" {
			rp = resolveDataset(sc.Seed, src.Name, tr, env, p, fail)
		} else {
			rp = resolveFile(sc.Seed, src.Name, tr, env, p, fail)
		}
		if rp != nil {
			out[src.Name] = rp
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// fillSpec fills what data sets and files share: speed-up, delay, the key
// column and filters (translated with codes), strictness, the stream.
func fillSpec(seed uint64, source string, tr *scenario.Trace, ds *Dataset, spec *TraceSpec, p string, fail func(string, string, ...any)) bool {
	ok := true
	col := func(path, name string) int {
		i := slices.Index(spec.Columns, name)
		if i < 0 {
			ok = false
			msg := fmt.Sprintf("unknown column %q", name)
			if s := suggestWord(name, spec.Columns); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else {
				msg += "; columns are " + strings.Join(spec.Columns, ", ")
			}
			fail(path, "%s", msg)
		}
		return i
	}
	spec.Speedup = tr.Speedup
	if spec.Speedup <= 0 {
		spec.Speedup = 1
	}
	spec.MaxDelay = tr.MaxDelay
	spec.Strict = tr.Malformed == scenario.TraceStrict
	spec.Seed, spec.Stream = seed, "source/"+source
	timeCol := tr.TimeColumn
	if timeCol == "" && ds != nil {
		timeCol = ds.TimeColumn
	}
	spec.Time = col(p+".time_column", timeCol)
	unit := tr.TimeUnit
	if unit == "" && ds != nil {
		unit = ds.TimeUnit
	}
	spec.TimeUnit = scenario.TimeUnitLength(unit)
	keyCol := tr.KeyColumn
	if keyCol == "" && ds != nil {
		keyCol = ds.KeyColumn
	}
	spec.Key = -1
	if keyCol != "" {
		spec.Key = col(p+".key_column", keyCol)
	}
	for _, f := range tr.Filter {
		fp := p + ".filter." + f.Column
		c := col(fp, f.Column)
		if c < 0 {
			continue
		}
		vals := map[string]bool{}
		for j, v := range f.Values {
			if ds != nil {
				code, err := ds.Code(f.Column, v)
				if err != nil {
					ok = false
					vp := fp
					if len(f.Values) > 1 {
						vp = fp + "[" + strconv.Itoa(j) + "]"
					}
					fail(vp, "%v", err)
					continue
				}
				v = code
			}
			vals[v] = true
		}
		spec.Filters = append(spec.Filters, Filter{Column: c, Values: vals})
	}
	return ok
}

func resolveDataset(seed uint64, source string, tr *scenario.Trace, env Env, p string, fail func(string, string, ...any)) *Replay {
	ds, err := env.Registry.Lookup(tr.Dataset)
	if err != nil {
		fail(p+".dataset", "%v", err)
		return nil
	}
	parts, err := scenario.ParseParts(cmpOr(strings.TrimSpace(tr.Parts), ds.DefaultParts), ds.Parts)
	if err != nil {
		fail(p+".parts", "%v", err)
		return nil
	}
	rp := &Replay{Spec: TraceSpec{Columns: ds.Columns, BeforeWindow: ds.BeforeWindow, AfterWindow: ds.AfterWindow}}
	if !fillSpec(seed, source, tr, ds, &rp.Spec, p, fail) {
		return nil
	}
	rp.What = ds.Name + " " + partsWord(parts)
	if env.NoData {
		return rp
	}
	var missing []int
	for _, n := range parts {
		if !env.Cache.Has(ds, n) {
			missing = append(missing, n)
		}
	}
	switch {
	case len(missing) == 0:
		var rows int64
		first, last := ds.Info(parts[0]).First, ds.Info(parts[len(parts)-1]).Last
		for _, n := range parts {
			k := ds.Info(n)
			if k.Rows == 0 || k.First == 0 || k.Last == 0 {
				rows = 0
				break
			}
			rows += k.Rows - k.BeforeWindow
		}
		for _, n := range parts {
			path := env.Cache.Path(ds, n)
			rp.Spec.Files = append(rp.Spec.Files, TraceFile{Name: path, Open: func() (io.ReadCloser, error) { return regfile.Open(path) }})
		}
		rp.From = "the cache (" + env.Cache.Path(ds, parts[0])
		if len(parts) > 1 {
			rp.From += " and " + strconv.Itoa(len(parts)-1) + " more"
		}
		rp.From += ")"
		rp.Origin = "cache"
		if rows > 0 && last > first {
			rp.Rows, rp.Span = rows, spanOf(last-first, ds.TimeUnit, rp.Spec.Speedup)
			trace := time.Duration(spanOf(last-first, ds.TimeUnit, 1)).Round(time.Second)
			rp.Extent = fmt.Sprintf("%s holds %s of the trace; more parts or a lower speedup replay longer", rp.What, trace)
		}
		for _, n := range parts {
			if ds.Info(n).Rows <= 0 {
				rp.Lines = 0
				break
			}
			rp.Lines += ds.Info(n).Rows
		}
		rp.Registry = ds.Origin
	case ds.Sample != nil && len(parts) == 1 && parts[0] == ds.Sample.Part:
		s := ds.Sample
		rp.Spec.Files = []TraceFile{{Name: "sample/" + s.File, Open: func() (io.ReadCloser, error) { return ds.sampleOpen() }}}
		rp.From = fmt.Sprintf("the embedded offline sample (%s, %d rows)", s.Description, s.Rows)
		if ds.Origin != "built-in" {
			rp.From = fmt.Sprintf("the offline sample %s (%s, %d rows)", filepath.Join(ds.dir, s.File), s.Description, s.Rows)
		}
		rp.Origin = "embedded offline sample"
		if ds.Origin != "built-in" {
			rp.Origin = "offline sample " + filepath.Join(ds.dir, s.File)
		}
		rp.Hint = fmt.Sprintf("for the whole part: dspalab datasets fetch %s --parts %d", ds.Name, s.Part)
		rp.Extent = fmt.Sprintf("the offline sample holds %s; fetch the data set for more", s.Description)
		if s.Rows > 0 && s.Last > s.First {
			rp.Rows, rp.Span = s.Rows, spanOf(s.Last-s.First, ds.TimeUnit, rp.Spec.Speedup)
		}
		rp.Lines, rp.Registry = s.Rows, ds.Origin
	default:
		msg := fmt.Sprintf("%s %s not in the cache; fetch with: dspalab datasets fetch %s --parts %s",
			partsWord(missing), map[bool]string{true: "is", false: "are"}[len(missing) == 1], ds.Name, formatParts(missing))
		if ds.Sample != nil {
			msg += fmt.Sprintf(" (offline, only part %d can be replayed, from its sample)", ds.Sample.Part)
		}
		fail(p+".parts", "%s", msg)
		return nil
	}
	return rp
}

func resolveFile(seed uint64, source string, tr *scenario.Trace, env Env, p string, fail func(string, string, ...any)) *Replay {
	path := tr.File
	if !filepath.IsAbs(path) && env.BaseDir != "" {
		path = filepath.Join(env.BaseDir, path)
	}
	fi, err := os.Stat(path)
	switch {
	case env.NoData:
	case err != nil:
		fail(p+".file", "cannot read the trace: %v", err)
		return nil
	case fi.IsDir():
		fail(p+".file", "%s is a directory, not a CSV file", path)
		return nil
	case !fi.Mode().IsRegular():
		// refused before the run, not at its first read (a device or
		// a FIFO never ends, or blocks)
		fail(p+".file", "%s is not a regular file (%s), not a CSV file", path, regfile.Kind(fi.Mode()))
		return nil
	}
	// From repeats nothing: "" when the path is the file as written
	rp := &Replay{Spec: TraceSpec{Columns: tr.Columns}, What: "file " + tr.File, Origin: "file " + path}
	if path != tr.File {
		rp.From = path
	}
	if !fillSpec(seed, source, tr, nil, &rp.Spec, p, fail) {
		return nil
	}
	rp.Spec.Files = []TraceFile{{Name: path, Open: func() (io.ReadCloser, error) { return regfile.Open(path) }}}
	return rp
}

// spanOf converts a span of trace time units to simulated time at speedup.
func spanOf(units int64, unit string, speedup float64) des.Time {
	return des.Time(float64(units) * float64(scenario.TimeUnitLength(unit)) / speedup)
}

// partsWord says "part 1" or "parts 0-2".
func partsWord(parts []int) string {
	if len(parts) == 1 {
		return "part " + strconv.Itoa(parts[0])
	}
	return "parts " + formatParts(parts)
}

// formatParts writes parts (sorted) as a selection: "0-2,5".
func formatParts(parts []int) string {
	var b strings.Builder
	for i := 0; i < len(parts); {
		j := i
		for j+1 < len(parts) && parts[j+1] == parts[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(",")
		}
		b.WriteString(strconv.Itoa(parts[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(parts[j]))
		}
		i = j + 1
	}
	return b.String()
}

// suggestWord returns the word of options nearest to w, or "".
func suggestWord(w string, options []string) string {
	best, bestDist := "", 0
	for _, o := range options {
		d := levenshteinLower(w, o)
		if best == "" || d < bestDist {
			best, bestDist = o, d
		}
	}
	if best != "" && bestDist <= max(1, len(w)/3) {
		return best
	}
	return ""
}
