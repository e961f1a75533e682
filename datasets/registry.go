// Package datasets fetches the course's data sets from Google Cloud Storage
// and replays them as trace sources of the simulator.
//
//   - A registry (Registry) names the data sets: the built-in one
//     (registry.yaml, embedded: the Google cluster trace 2011) extended by
//     a user file for instructors' own buckets.
//   - Fetch downloads parts of a data set from its bucket (a Store:
//     package datasets/gcs gives the one of Google Cloud Storage, on its
//     JSON API, kept out of this package so that what only reads the cache
//     links no HTTP client or credentials) into a local
//     cache (Cache): anonymously by default, parts in
//     parallel, resuming interrupted downloads with range reads, and
//     verifying size, CRC32C and MD5 against the object's attributes before
//     a file enters the cache.
//   - NewReader streams a CSV or CSV.gz trace as sim.TraceRecords: time
//     column and unit, speed-up, a bounded random serving delay, a key
//     column, filters and malformed lines (see Reader).
//   - Opener resolves a scenario's trace (a data set from the cache, else
//     the embedded offline sample; or a file) into a sim.TraceOpener.
package datasets

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/sim/scenario"
)

//go:embed registry.yaml
var builtinYAML []byte

//go:embed sample/*.csv.gz
var sampleFS embed.FS

// Dataset is one data set of the registry: objects in a GCS bucket, each
// a CSV or CSV.gz file without a header row.
type Dataset struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Bucket is the GCS bucket; Object the name of part N, with {part}
	// (or {part:05}, zero-padded to 5 digits) standing for N, for Parts
	// parts; or Objects lists the objects, part i being Objects[i].
	Bucket  string   `yaml:"bucket"`
	Object  string   `yaml:"object"`
	Objects []string `yaml:"objects"`
	Parts   int      `yaml:"parts"`
	// DefaultParts is the selection fetched and replayed when none is
	// given ("1", "0-2", "all"); default "all".
	DefaultParts string `yaml:"default_parts"`
	// Format is csv or csv.gz (a gzip stream is recognised by its first
	// bytes in any case).
	Format string `yaml:"format"`
	// Columns names the columns in order; TimeColumn holds the timestamps
	// in TimeUnit (ns, us, ms or s); KeyColumn is the default key.
	Columns    []string `yaml:"columns"`
	TimeColumn string   `yaml:"time_column"`
	TimeUnit   string   `yaml:"time_unit"`
	KeyColumn  string   `yaml:"key_column"`
	// Codes names the values of coded columns: column -> name -> value,
	// so a filter may say event_type: FINISH for the value 4.
	Codes map[string]map[string]string `yaml:"codes"`
	// BeforeWindow and AfterWindow, when set, are timestamps that mark
	// events before and after the trace's window (0 and 2^63-1 in the
	// Google trace): such rows are skipped and counted.
	BeforeWindow *int64 `yaml:"before_window"`
	AfterWindow  *int64 `yaml:"after_window"`
	Licence      string `yaml:"licence"`
	Attribution  string `yaml:"attribution"`
	URL          string `yaml:"url"`
	// Known holds what is known of some parts; Sample, an offline sample.
	Known  []PartInfo `yaml:"known"`
	Sample *Sample    `yaml:"sample"`

	// Origin is "built-in" or the registry file that defines the data set.
	Origin string `yaml:"-"`
	dir    string // directory of the registry file (for a sample file)
}

// PartInfo is what the registry knows of one part: its size in bytes, its
// rows, the rows before the trace window, its first and last in-window
// timestamps (in the time unit), and its checksums (CRC32C and MD5 in
// base64 as GCS gives them; SHA-256 in hex). Zero values are unknown.
type PartInfo struct {
	Part         int    `yaml:"part"`
	Size         int64  `yaml:"size"`
	Rows         int64  `yaml:"rows"`
	BeforeWindow int64  `yaml:"before_window"`
	First        int64  `yaml:"first"`
	Last         int64  `yaml:"last"`
	CRC32C       string `yaml:"crc32c"`
	MD5          string `yaml:"md5"`
	SHA256       string `yaml:"sha256"`
}

// Sample is an offline sample of one part of a data set: a file embedded
// in dspalab (built-in registry) or beside the registry file (a user's).
type Sample struct {
	Part        int    `yaml:"part"`
	File        string `yaml:"file"`
	Description string `yaml:"description"`
	Rows        int64  `yaml:"rows"`
	First       int64  `yaml:"first"`
	Last        int64  `yaml:"last"`
	SHA256      string `yaml:"sha256"`
}

// Registry is the data sets dspalab knows, by name.
type Registry struct {
	sets []*Dataset
}

type registryFile struct {
	Datasets []*Dataset `yaml:"datasets"`
}

var builtin = sync.OnceValues(func() (*Registry, error) {
	return parseRegistry("built-in", "", builtinYAML)
})

// Builtin returns the built-in registry.
func Builtin() *Registry {
	r, err := builtin()
	if err != nil {
		panic("datasets: the built-in registry is invalid: " + err.Error()) // a test checks it
	}
	return r
}

// DefaultRegistryFile returns the user registry file read when none is
// named: $DSPALAB_REGISTRY if set, else datasets.yaml in the dspalab
// directory of os.UserConfigDir (~/.config/dspalab/datasets.yaml on
// Linux). explicit reports that it came from the environment, so it must
// exist.
func DefaultRegistryFile() (path string, explicit bool) {
	if p := os.Getenv("DSPALAB_REGISTRY"); p != "" {
		return p, true
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, "dspalab", "datasets.yaml"), false
}

// maxRegistryBytes bounds a registry file: 4 MiB (a registry is a
// short YAML file).
const maxRegistryBytes = 4 << 20

// LoadRegistry returns the built-in registry extended by the user registry
// file: file if not empty (it must exist), else DefaultRegistryFile (which
// may be missing). A user data set may not reuse a built-in name.
func LoadRegistry(file string) (*Registry, error) {
	explicit := file != ""
	if !explicit {
		file, explicit = DefaultRegistryFile()
	}
	reg := &Registry{sets: slices.Clone(Builtin().sets)}
	if file == "" {
		return reg, nil
	}
	data, err := regfile.ReadFile(file, maxRegistryBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return reg, nil
	case err != nil:
		return nil, fmt.Errorf("datasets: reading the registry: %w", err)
	}
	user, err := parseRegistry(file, filepath.Dir(file), data)
	if err != nil {
		return nil, err
	}
	for _, ds := range user.sets {
		if prev := reg.find(ds.Name); prev != nil {
			return nil, fmt.Errorf("datasets: %s: data set %q is already defined by the %s registry; choose another name", file, ds.Name, prev.Origin)
		}
		reg.sets = append(reg.sets, ds)
	}
	return reg, nil
}

// parseRegistry decodes and checks a registry file. Unknown fields are
// errors (yaml's KnownFields at the top level: no custom unmarshalers).
func parseRegistry(origin, dir string, data []byte) (*Registry, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f registryFile
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, fmt.Errorf("datasets: registry %s: %s", origin, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		var msgs []error
		for _, e := range te.Errors {
			if m := reUnknownField.FindStringSubmatch(e); m != nil {
				e = fmt.Sprintf("line %s: unknown field %q", m[1], m[2])
			}
			msgs = append(msgs, fmt.Errorf("datasets: registry %s: %s", origin, e))
		}
		return nil, errors.Join(msgs...)
	}
	reg := &Registry{}
	var errs []error
	for i, ds := range f.Datasets {
		if ds == nil {
			errs = append(errs, fmt.Errorf("datasets: registry %s: datasets[%d] is empty", origin, i))
			continue
		}
		ds.Origin, ds.dir = origin, dir
		if ds.DefaultParts == "" {
			ds.DefaultParts = "all"
		}
		if ds.Format == "" {
			ds.Format = "csv"
		}
		if len(ds.Objects) > 0 && ds.Parts == 0 {
			ds.Parts = len(ds.Objects)
		}
		if err := ds.check(); err != nil {
			errs = append(errs, fmt.Errorf("datasets: registry %s: data set %q: %w", origin, ds.Name, err))
			continue
		}
		if reg.find(ds.Name) != nil {
			errs = append(errs, fmt.Errorf("datasets: registry %s: data set %q is defined twice", origin, ds.Name))
			continue
		}
		reg.sets = append(reg.sets, ds)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return reg, nil
}

var (
	reUnknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type `)
	reTemplate     = regexp.MustCompile(`\{part(?::0(\d))?\}`)
	reBucket       = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]+[a-z0-9]$`)
	reDSName       = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*$`)
)

// check validates a data set of a registry file.
func (ds *Dataset) check() error {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if !reDSName.MatchString(ds.Name) {
		add("name must be words of letters, digits, _, - and . separated by /, such as course/rides")
	}
	if ds.Bucket == "" {
		add("bucket is missing")
	} else if why := checkBucket(ds.Bucket); why != "" {
		add("bucket %q is not a GCS bucket name: %s", ds.Bucket, why)
	}
	switch {
	case ds.Object != "" && len(ds.Objects) > 0:
		add("give object (a template) or objects (a list), not both")
	case ds.Object == "" && len(ds.Objects) == 0:
		add("object (a template such as data/part-{part:05}.csv.gz) or objects (a list) is missing")
	case ds.Object != "" && !reTemplate.MatchString(ds.Object):
		add("object %q has no {part} or {part:05} for the part number", ds.Object)
	case ds.Parts < 1:
		add("parts (the number of parts) must be at least 1")
	case len(ds.Objects) > 0 && ds.Parts != len(ds.Objects):
		add("parts is %d but objects lists %d", ds.Parts, len(ds.Objects))
	}
	for _, o := range append([]string{ds.Object}, ds.Objects...) {
		switch parts := strings.Split(o, "/"); {
		case o == "":
		case strings.HasPrefix(o, "/") || slices.Contains(parts, ".."):
			add("object %q must be a name inside the bucket (no leading / or ..)", o)
		case slices.Contains(parts, "") || slices.Contains(parts, "."):
			// the cache is a file tree: a//b, a/./b and a/ would be
			// the files of a/b, a/b and a, another object's
			add("object %q has an empty or . name between its slashes, which the cache cannot keep apart from another object's", o)
		case strings.HasSuffix(o, ".part") || strings.HasSuffix(o, ".meta.json"):
			add("object %q ends in .part or .meta.json, the names of the cache's downloads and checksums", o)
		}
	}
	if ds.Format != "csv" && ds.Format != "csv.gz" {
		add("format must be csv or csv.gz, got %q", ds.Format)
	}
	if len(ds.Columns) == 0 {
		add("columns is missing")
	}
	seen := map[string]bool{}
	for _, c := range ds.Columns {
		if c == "" || seen[c] {
			add("column %q is empty or listed twice", c)
		}
		seen[c] = true
	}
	if !seen[ds.TimeColumn] {
		add("time_column %q is not one of the columns", ds.TimeColumn)
	}
	if scenario.TimeUnitLength(ds.TimeUnit) == 0 {
		add("time_unit must be ns, us, ms or s, got %q", ds.TimeUnit)
	}
	if ds.KeyColumn != "" && !seen[ds.KeyColumn] {
		add("key_column %q is not one of the columns", ds.KeyColumn)
	}
	for _, col := range slices.Sorted(mapKeys(ds.Codes)) {
		if !seen[col] {
			add("codes: %q is not one of the columns", col)
		}
	}
	if ds.Parts > 0 {
		if _, err := scenario.ParseParts(ds.DefaultParts, ds.Parts); err != nil {
			add("default_parts: %v", err)
		}
	}
	for _, k := range ds.Known {
		if k.Part < 0 || k.Part >= ds.Parts {
			add("known: part %d is out of range", k.Part)
		}
	}
	if s := ds.Sample; s != nil {
		if s.Part < 0 || s.Part >= ds.Parts {
			add("sample: part %d is out of range", s.Part)
		}
		if s.File == "" {
			add("sample: file is missing")
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// checkBucket says why name is not a valid GCS bucket name, or "". The
// rules are GCS's (https://cloud.google.com/storage/docs/buckets#naming):
// lower-case letters, digits, -, _ and .; 3 to 63 characters (up to 222
// with dots, each dot-separated part at most 63); starting and ending with
// a letter or digit; not an IP address; not starting with "goog". A valid
// name is one directory name in the cache, never a path that leaves it.
func checkBucket(name string) string {
	const rule = "use 3 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit"
	switch {
	case !reBucket.MatchString(name):
		return rule
	case len(name) > 63 && !strings.Contains(name, "."), len(name) > 222:
		return fmt.Sprintf("%d characters; %s", len(name), rule)
	case strings.HasPrefix(name, "goog"):
		return `GCS reserves names that start with "goog"`
	case net.ParseIP(name) != nil:
		return "an IP address cannot be a bucket name"
	}
	for _, part := range strings.Split(name, ".") {
		if len(part) > 63 {
			return fmt.Sprintf("the dot-separated part %q has %d characters, more than 63", part, len(part))
		}
	}
	return ""
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (r *Registry) find(name string) *Dataset {
	for _, ds := range r.sets {
		if ds.Name == name {
			return ds
		}
	}
	return nil
}

// Datasets returns the data sets in registry order: the built-in ones,
// then the user's.
func (r *Registry) Datasets() []*Dataset { return slices.Clone(r.sets) }

// Lookup returns the data set called name, or an error that suggests the
// nearest name and points to `dspalab datasets list`.
func (r *Registry) Lookup(name string) (*Dataset, error) {
	if ds := r.find(name); ds != nil {
		return ds, nil
	}
	msg := fmt.Sprintf("unknown data set %q", name)
	if s := r.suggest(name); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += "; dspalab datasets list shows the data sets"
	}
	return nil, errors.New(msg)
}

// suggest returns the name nearest to typed, or "".
func (r *Registry) suggest(typed string) string {
	best, bestDist := "", 0
	for _, ds := range r.sets {
		d := levenshteinLower(typed, ds.Name)
		if strings.HasSuffix(ds.Name, "/"+typed) {
			d = 0
		}
		if best == "" || d < bestDist {
			best, bestDist = ds.Name, d
		}
	}
	if best != "" && bestDist <= max(2, len(typed)/3) {
		return best
	}
	return ""
}

// ObjectName returns the name of part n in the bucket.
func (ds *Dataset) ObjectName(n int) string {
	if len(ds.Objects) > 0 {
		return ds.Objects[n]
	}
	return reTemplate.ReplaceAllStringFunc(ds.Object, func(m string) string {
		sub := reTemplate.FindStringSubmatch(m)
		if sub[1] == "" {
			return strconv.Itoa(n)
		}
		w, _ := strconv.Atoi(sub[1])
		return fmt.Sprintf("%0*d", w, n)
	})
}

// URI returns gs://bucket/object of part n.
func (ds *Dataset) URI(n int) string { return "gs://" + ds.Bucket + "/" + ds.ObjectName(n) }

// SelectParts reads a selection of parts ("1", "0-2", "all"; "" is the
// data set's DefaultParts) as scenario.ParseParts does, bounded by the
// data set's number of parts.
func (ds *Dataset) SelectParts(sel string) ([]int, error) {
	if strings.TrimSpace(sel) == "" {
		sel = ds.DefaultParts
	}
	parts, err := scenario.ParseParts(sel, ds.Parts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return parts, nil
}

// Info returns what the registry knows of part n (zero fields: unknown).
func (ds *Dataset) Info(n int) PartInfo {
	for _, k := range ds.Known {
		if k.Part == n {
			return k
		}
	}
	return PartInfo{Part: n}
}

// Code translates a filter value of column: the name of a code (FINISH,
// case-insensitive) gives its value; a value that is already one of the
// codes' values, or any value of a column without codes, stays as it is.
// An unknown name of a coded column is an error that lists the names.
func (ds *Dataset) Code(column, v string) (string, error) {
	codes := ds.Codes[column]
	if len(codes) == 0 {
		return v, nil
	}
	for name, val := range codes {
		if strings.EqualFold(name, v) {
			return val, nil
		}
	}
	for _, val := range codes {
		if val == v {
			return v, nil
		}
	}
	names := slices.SortedFunc(mapKeys(codes), func(a, b string) int {
		x, _ := strconv.Atoi(codes[a])
		y, _ := strconv.Atoi(codes[b])
		return x - y
	})
	return "", fmt.Errorf("unknown %s %q; expected one of %s (or their values)", column, v, strings.Join(names, ", "))
}

// sampleOpen opens the offline sample's file: embedded for the built-in
// registry, beside the registry file for a user's.
func (ds *Dataset) sampleOpen() (fs.File, error) {
	if ds.Origin == "built-in" {
		return sampleFS.Open("sample/" + ds.Sample.File)
	}
	return regfile.Open(filepath.Join(ds.dir, ds.Sample.File))
}

// levenshteinLower is the edit distance of a and b, ignoring case.
func levenshteinLower(a, b string) int {
	return levenshtein.ComputeDistance(strings.ToLower(a), strings.ToLower(b))
}
