package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The built-in registry is valid, and its samples are what it says: their
// checksums, rows and first and last timestamps; each is the start of its
// part.
func TestBuiltinRegistryAndSamples(t *testing.T) {
	reg := Builtin()
	if len(reg.Datasets()) != 2 {
		t.Fatalf("%d built-in data sets", len(reg.Datasets()))
	}
	for _, ds := range reg.Datasets() {
		s := ds.Sample
		f, err := ds.sampleOpen()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(f)
		f.Close()
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != s.SHA256 {
			t.Errorf("%s: the sample's sha256 differs from the registry's", ds.Name)
		}
		if len(data) > 400<<10 {
			t.Errorf("%s: the sample is %d bytes; keep it to a few hundred KB", ds.Name, len(data))
		}
		r := NewReader(datasetSpec(t, ds.Name, scenario.Trace{}, bytesFile("sample", data)), 0, 1)
		recs, err := readAll(t, r)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Stats()
		if int64(len(recs)) != s.Rows || st.First != s.First || st.Last != s.Last || st.Lines != s.Rows {
			t.Errorf("%s: sample has %d rows %d..%d; registry says %d rows %d..%d", ds.Name, len(recs), st.First, st.Last, s.Rows, s.First, s.Last)
		}
		if k := ds.Info(s.Part); k.First != s.First {
			t.Errorf("%s: the sample does not start its part", ds.Name)
		}
		if ds.Licence != "CC BY 4.0" || !strings.Contains(ds.Attribution, "Google") {
			t.Errorf("%s: licence %q, attribution %q", ds.Name, ds.Licence, ds.Attribution)
		}
	}
	ds := taskEvents(t)
	if got := ds.URI(1); got != "gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz" {
		t.Errorf("URI(1) = %s", got)
	}
	if got := ds.ObjectName(499); got != "task_events/part-00499-of-00500.csv.gz" {
		t.Errorf("ObjectName(499) = %s", got)
	}
	if _, err := reg.Lookup("task_events"); err == nil || err.Error() != `unknown data set "task_events"; did you mean "clusterdata-2011-2/task_events"?` {
		t.Errorf("Lookup(task_events): %v", err)
	}
	if _, err := reg.Lookup("rides"); err == nil || err.Error() != `unknown data set "rides"; dspalab datasets list shows the data sets` {
		t.Errorf("Lookup(rides): %v", err)
	}
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const userRegistry = `datasets:
  - name: course/rides
    description: Rides.
    bucket: course
    objects: [a.csv, b.csv.gz]
    columns: [id, t, taxi]
    time_column: t
    time_unit: ms
`

func TestUserRegistry(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "datasets.yaml", userRegistry)
	reg, err := LoadRegistry(file)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := reg.Lookup("course/rides")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Parts != 2 || ds.ObjectName(1) != "b.csv.gz" || ds.DefaultParts != "all" || ds.Origin != file || len(reg.Datasets()) != 3 {
		t.Errorf("user data set %+v", ds)
	}

	// $DSPALAB_REGISTRY names it; a missing default file is fine, a
	// missing named one is not
	t.Setenv("DSPALAB_REGISTRY", file)
	if reg, err := LoadRegistry(""); err != nil || reg.find("course/rides") == nil {
		t.Errorf("from $DSPALAB_REGISTRY: %v", err)
	}
	t.Setenv("DSPALAB_REGISTRY", "")
	t.Setenv("XDG_CONFIG_HOME", dir) // no dspalab/datasets.yaml there
	if reg, err := LoadRegistry(""); err != nil || len(reg.Datasets()) != 2 {
		t.Errorf("without a user file: %v", err)
	}
	writeFile(t, dir, "dspalab/datasets.yaml", userRegistry)
	if reg, err := LoadRegistry(""); err != nil || reg.find("course/rides") == nil {
		t.Errorf("from the config directory: %v", err)
	}
	if _, err := LoadRegistry(filepath.Join(dir, "nosuch.yaml")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing registry: %v", err)
	}

	for _, c := range []struct{ yaml, want string }{
		{"datasets:\n  - name: a/b\n    bucket: xyz\n    object: p.csv\n    parts: 2\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": object "p.csv" has no {part} or {part:05} for the part number`},
		{"datasets:\n  - name: a b\n    object: p{part}.csv\n    parts: 2\n    columns: [t, t]\n    time_column: u\n    time_unit: min\n    key_column: k\n    default_parts: 5\n    codes: {c: {X: 1}}\n",
			`datasets: registry r.yaml: data set "a b": name must be words of letters, digits, _, - and . separated by /, such as course/rides; bucket is missing; column "t" is empty or listed twice; time_column "u" is not one of the columns; time_unit must be ns, us, ms or s, got "min"; key_column "k" is not one of the columns; codes: "c" is not one of the columns; default_parts: part 5 is out of range; the data set has parts 0-1`},
		{"datasets:\n  - name: a/b\n    bucket: xyz\n    object: p{part}.csv\n    objects: [a]\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": give object (a template) or objects (a list), not both`},
		{"datasets:\n  - name: a/b\n    buckett: x\n", `datasets: registry r.yaml: line 3: unknown field "buckett"`},
		{"datasets:\n  - name: a/b\n    bucket: xyz\n    objects: [ok.csv, ../../etc/passwd]\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": object "../../etc/passwd" must be a name inside the bucket (no leading / or ..)`},
		// the cache is a file tree: one file per object
		{"datasets:\n  - name: a/b\n    bucket: xyz\n    objects: [d/a.csv, d//a.csv, ./d/a.csv, d/, d/x.csv.g7.part, d/a.csv.meta.json]\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": object "d//a.csv" has an empty or . name between its slashes, which the cache cannot keep apart from another object's; object "./d/a.csv" has an empty or . name between its slashes, which the cache cannot keep apart from another object's; object "d/" has an empty or . name between its slashes, which the cache cannot keep apart from another object's; object "d/x.csv.g7.part" ends in .part or .meta.json, the names of the cache's downloads and checksums; object "d/a.csv.meta.json" ends in .part or .meta.json, the names of the cache's downloads and checksums`},
		{"datasets: [", `datasets: registry r.yaml: line 1: did not find expected node content`},
		// a bucket is one directory of the cache: never a path (F16)
		{"datasets:\n  - name: a/b\n    bucket: ../../../../outside/victim\n    object: p{part}.csv\n    parts: 1\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": bucket "../../../../outside/victim" is not a GCS bucket name: use 3 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit`},
		{"datasets:\n  - name: a/b\n    bucket: x\n    object: p{part}.csv\n    parts: 1\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": bucket "x" is not a GCS bucket name: use 3 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit`},
		{"datasets:\n  - name: a/b\n    bucket: Course\n    object: p{part}.csv\n    parts: 1\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": bucket "Course" is not a GCS bucket name: use 3 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit`},
		{"datasets:\n  - name: a/b\n    bucket: " + strings.Repeat("a", 64) + "\n    object: p{part}.csv\n    parts: 1\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": bucket "` + strings.Repeat("a", 64) + `" is not a GCS bucket name: 64 characters; use 3 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit`},
		{"datasets:\n  - name: a/b\n    bucket: 192.168.5.4\n    object: p{part}.csv\n    parts: 1\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": bucket "192.168.5.4" is not a GCS bucket name: an IP address cannot be a bucket name`},
		{"datasets:\n  - name: a/b\n    bucket: goog-data\n    object: p{part}.csv\n    parts: 1\n    columns: [t]\n    time_column: t\n    time_unit: s\n",
			`datasets: registry r.yaml: data set "a/b": bucket "goog-data" is not a GCS bucket name: GCS reserves names that start with "goog"`},
	} {
		if _, err := parseRegistry("r.yaml", "", []byte(c.yaml)); err == nil || err.Error() != c.want {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// Resolve replays a data set from the cache when all its parts are there,
// else from its sample, and otherwise says what to fetch; files are
// relative to the scenario; names are checked with the file's positions.
func TestResolve(t *testing.T) {
	parse := func(text string) *scenario.Scenario {
		t.Helper()
		sc, err := scenario.Parse("s.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	sc := parse(`duration: 10s
sources:
  - name: tasks
    arrival: {process: trace, trace: {dataset: clusterdata-2011-2/task_events, speedup: 60, key_column: machine_id, filter: {event_type: FINISH}}}
sinks: [{name: out, input: tasks}]
`)
	env := Env{Registry: Builtin(), Cache: Cache{Dir: t.TempDir()}}
	rps, err := Resolve(sc, env)
	if err != nil {
		t.Fatal(err)
	}
	rp := rps["tasks"]
	if rp.What != "clusterdata-2011-2/task_events part 1" || !strings.HasPrefix(rp.From, "the embedded offline sample (the first 30 minutes of part 1, 25294 rows)") ||
		rp.Spec.Key != 4 || rp.Spec.Speedup != 60 || !rp.Spec.Filters[0].Values["4"] || rp.Spec.Filters[0].Column != 5 {
		t.Errorf("from the sample: %+v", rp)
	}
	if rate := rp.Rate(); rate < 843 || rate > 844 {
		t.Errorf("sample rate %v records/s, want 25294 rows / (1799.6s / 60)", rate)
	}

	// the part in the cache
	ds := taskEvents(t)
	path := env.Cache.Path(ds, 1)
	writeFile(t, filepath.Dir(path), filepath.Base(path), string(readTestdata(t, taskFile)))
	rps, err = Resolve(sc, env)
	if err != nil {
		t.Fatal(err)
	}
	rp = rps["tasks"]
	if rp.From != "the cache ("+path+")" || rp.Rows != taskRows || rp.Span != des.Time((taskLast-taskFirst)*1000/60) {
		t.Errorf("from the cache: %+v", rp)
	}
	recs, err := readAll(t, NewReader(&rp.Spec, 0, 1))
	if err != nil || len(recs) != 14551 {
		t.Errorf("FINISH events of the cached part: %d, %v", len(recs), err)
	}

	// parts neither cached nor sampled
	sc = parse(`duration: 10s
sources:
  - name: tasks
    arrival:
      process: trace
      trace: {dataset: clusterdata-2011-2/task_events, parts: 0-2}
sinks: [{name: out, input: tasks}]
`)
	_, err = Resolve(sc, env)
	if want := "s.yaml:6:63: sources[0].arrival.trace.parts: parts 0,2 are not in the cache; fetch with: dspalab datasets fetch clusterdata-2011-2/task_events --parts 0,2 (offline, only part 1 can be replayed, from its sample)"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	env.NoData = true
	if _, err := Resolve(sc, env); err != nil {
		t.Errorf("NoData: %v", err)
	}
	env.NoData = false

	// a file relative to the scenario's directory
	dir := t.TempDir()
	writeFile(t, dir, "data/x.csv", "1,a\n2,b\n")
	sc = parse(`duration: 10s
sources:
  - name: s
    arrival: {process: trace, trace: {file: data/x.csv, columns: [t, k], time_column: t, time_unit: s, key_column: k}}
  - name: missing
    arrival: {process: trace, trace: {file: nosuch.csv, columns: [t], time_column: t, time_unit: s}}
sinks: [{name: out, inputs: [s, missing]}]
`)
	env.BaseDir = dir
	_, err = Resolve(sc, env)
	if want := "s.yaml:6:45: sources[1].arrival.trace.file: cannot read the trace: stat " + filepath.Join(dir, "nosuch.csv") + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	sc.Sources = sc.Sources[:1]
	rps, err = Resolve(sc, env)
	if err != nil {
		t.Fatal(err)
	}
	if rp := rps["s"]; rp.What != "file data/x.csv" || rp.From != filepath.Join(dir, "data/x.csv") || rp.Rate() != 0 {
		t.Errorf("a file: %+v", rp)
	}
}

func TestFormatParts(t *testing.T) {
	for want, parts := range map[string][]int{"1": {1}, "0-2": {0, 1, 2}, "0,2-4,7": {0, 2, 3, 4, 7}} {
		if got := formatParts(parts); got != want {
			t.Errorf("formatParts(%v) = %s, want %s", parts, got, want)
		}
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func taskEvents(t testing.TB) *Dataset {
	ds, err := Builtin().Lookup("clusterdata-2011-2/task_events")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
