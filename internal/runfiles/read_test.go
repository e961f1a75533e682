package runfiles

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// A run directory with a manifest shows only the files it lists: a
// checkpoints.csv left by someone else is not taken for the run's.
// Without a manifest (an older run), every file present counts. A
// run.json that is not dspalab's is refused.
func TestRunDirManifest(t *testing.T) {
	files := fstest.MapFS{
		ManifestFile:    {Data: []byte(`{"format": "dspalab run outputs", "files": ["summary.json", "timeseries.csv", "events.jsonl"], "partial": false}`)},
		SummaryFile:     {Data: []byte(`{"scenario": "x", "duration_s": 10, "warmup_s": 1, "simulated_s": 10}`)},
		TimeseriesFile:  {Data: []byte("time_s,vertex,subtask,m\n1,a,-1,2\n")},
		EventsFile:      {Data: []byte(`{"time_s": 1, "type": "run_started"}` + "\n")},
		CheckpointsFile: {Data: []byte("not ours\n")},
	}
	d, err := OpenRunDir(files, "r")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Has(SummaryFile) || d.Has(CheckpointsFile) || d.Has(CheckpointSubtasksFile) {
		t.Errorf("Has: summary %v, checkpoints %v", d.Has(SummaryFile), d.Has(CheckpointsFile))
	}
	if _, err := d.Open(CheckpointsFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a file the manifest does not list: %v", err)
	}
	s, _, err := d.ReadSummary()
	if err != nil || s.Scenario != "x" {
		t.Fatalf("ReadSummary = %+v, %v", s, err)
	}
	delete(files, ManifestFile)
	if d, err = OpenRunDir(files, "r"); err != nil || !d.Has(CheckpointsFile) {
		t.Errorf("without a manifest: %v, Has(checkpoints.csv) %v", err, d.Has(CheckpointsFile))
	}
	files[ManifestFile] = &fstest.MapFile{Data: []byte(`{"files": []}`)}
	if _, err := OpenRunDir(files, "r"); err == nil || !strings.Contains(err.Error(), "r: run.json is not the manifest of a dspalab run") {
		t.Errorf("a foreign run.json: %v", err)
	}
}

// ReadTimeseries keeps the filter's metrics that the file has, in order,
// turns cells that are not finite numbers into NaN, and names file and
// line of a bad subtask.
func TestReadTimeseries(t *testing.T) {
	in := "time_s,vertex,kind,subtask,a,b\n1,v,operator,-1,1,Inf\n2,v,operator,-1,x,3\n2,v,operator,0,5,5\n"
	ts, err := ReadTimeseries(strings.NewReader(in), "t.csv", TimeseriesFilter{Metrics: []string{"b", "missing"}, Optional: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Series) != 1 || ts.Series[0].Name() != "v" || len(ts.Series[0].Values) != 2 {
		t.Fatalf("series %+v", ts.Series)
	}
	v := ts.Series[0].Values
	if v["a"][0] != 1 || v["a"][1] == v["a"][1] || v["b"][0] == v["b"][0] || v["b"][1] != 3 {
		t.Errorf("values %v", v)
	}
	_, err = ReadTimeseries(strings.NewReader("time_s,vertex,subtask\n1,v,one\n"), "t.csv", TimeseriesFilter{})
	if err == nil || err.Error() != `t.csv line 2: subtask "one" is not a whole number` {
		t.Errorf("bad subtask: %v", err)
	}
	if _, err := ReadTimeseries(strings.NewReader(""), "t.csv", TimeseriesFilter{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty: %v", err)
	}
}
