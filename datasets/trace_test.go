package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The real files of the Google cluster trace (ClusterData2011_2), copied
// unmodified from the shared data folder, and what the shared README says
// of them (rows) with their first and last timestamps (us).
const (
	taskFile  = "testdata/task_events-part-00001-of-00500.csv.gz"
	taskRows  = 77776
	taskFirst = 5611824441
	taskLast  = 10622388150
	jobFile   = "testdata/job_events-part-00001-of-00500.csv.gz"
	jobRows   = 3099
	jobFirst  = 5620274759
	jobLast   = 10622369433
)

func osFile(path string) TraceFile {
	return TraceFile{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

func bytesFile(name string, data []byte) TraceFile {
	return TraceFile{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// datasetSpec is the spec of a built-in data set over files, as Resolve
// makes it, with the changes of tr.
func datasetSpec(t testing.TB, name string, tr scenario.Trace, files ...TraceFile) *TraceSpec {
	t.Helper()
	ds, err := Builtin().Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Speedup == 0 {
		tr.Speedup = 1
	}
	spec := &TraceSpec{Columns: ds.Columns, BeforeWindow: ds.BeforeWindow, AfterWindow: ds.AfterWindow}
	var errs []string
	if !fillSpec(1, "src", &tr, ds, spec, "trace", func(p, f string, a ...any) { errs = append(errs, p) }) {
		t.Fatalf("spec: %v", errs)
	}
	spec.Files = files
	return spec
}

// readAll reads every record of a reader, checking the arrival order and
// that no event arrives before it happened.
func readAll(t testing.TB, r *Reader) ([]sim.TraceRecord, error) {
	t.Helper()
	var out []sim.TraceRecord
	for {
		rec, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, err
		}
		if n := len(out); n > 0 && rec.Arrival < out[n-1].Arrival {
			t.Fatalf("record %d arrives at %v, before the one before it (%v)", n, rec.Arrival, out[n-1].Arrival)
		}
		if rec.EventTime > rec.Arrival {
			t.Fatalf("record %d arrives at %v, before its event time %v", len(out), rec.Arrival, rec.EventTime)
		}
		out = append(out, rec)
	}
}

// Replaying a real file yields exactly its rows, over exactly its span of
// event time.
func TestReplayRealFiles(t *testing.T) {
	for _, c := range []struct {
		dataset, file string
		rows          int
		first, last   int64
	}{
		{"clusterdata-2011-2/task_events", taskFile, taskRows, taskFirst, taskLast},
		{"clusterdata-2011-2/job_events", jobFile, jobRows, jobFirst, jobLast},
	} {
		t.Run(c.dataset, func(t *testing.T) {
			r := NewReader(datasetSpec(t, c.dataset, scenario.Trace{}, osFile(c.file)), 0, 1)
			recs, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != c.rows {
				t.Errorf("replayed %d records, want %d", len(recs), c.rows)
			}
			span := des.Time(c.last-c.first) * des.Microsecond
			if recs[0].EventTime != 0 || recs[len(recs)-1].EventTime != span {
				t.Errorf("event times %v .. %v, want 0 .. %v", recs[0].EventTime, recs[len(recs)-1].EventTime, span)
			}
			st := r.Stats()
			want := TraceStats{Lines: int64(c.rows), Records: int64(c.rows), Emitted: int64(c.rows), First: c.first, Last: c.last, End: span, EOF: true}
			if st != want {
				t.Errorf("stats %+v, want %+v", st, want)
			}
			if k := Builtin().find(c.dataset).Info(1); k.Rows != int64(c.rows) || k.First != c.first || k.Last != c.last {
				t.Errorf("the registry says %+v", k)
			}
		})
	}
}

// Subtasks share the rows round-robin; a speed-up divides the times.
func TestReplayParallelAndSpeedup(t *testing.T) {
	spec := datasetSpec(t, "clusterdata-2011-2/task_events", scenario.Trace{Speedup: 60}, osFile(taskFile))
	total := 0
	var last des.Time
	for i := range 4 {
		recs, err := readAll(t, NewReader(spec, i, 4))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(recs); n != taskRows/4 {
			t.Errorf("subtask %d: %d records, want %d", i, n, taskRows/4)
		}
		total += len(recs)
		last = max(last, recs[len(recs)-1].EventTime)
	}
	want := des.Time((taskLast - taskFirst) * 1000 / 60)
	if total != taskRows || last < want-1 || last > want+1 {
		t.Errorf("%d records until %v, want %d until %v", total, last, taskRows, want)
	}
}

// The key column, the filter with named codes, and missing keys.
func TestReplayKeysAndFilter(t *testing.T) {
	r := NewReader(datasetSpec(t, "clusterdata-2011-2/task_events", scenario.Trace{KeyColumn: "machine_id"}, osFile(taskFile)), 0, 1)
	recs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.NoKey != 30957 || len(recs) != taskRows-30957 {
		t.Errorf("%d records, %d without a machine, want %d and 30957", len(recs), st.NoKey, taskRows-30957)
	}
	// the first row: machine 1306108; a machine id over 2^32 is hashed
	if recs[0].Key != 1306108 {
		t.Errorf("first key %d, want 1306108", recs[0].Key)
	}
	if parseKey("4820285492") != parseKey(" 4820285492"[1:]) || parseKey("4820285492") == uint32(4820285492%(1<<32)) {
		t.Error("a large id must be hashed")
	}
	if parseKey("abc") == parseKey("abd") || parseKey("7") != 7 {
		t.Error("parseKey")
	}

	r = NewReader(datasetSpec(t, "clusterdata-2011-2/task_events", scenario.Trace{
		Filter: []scenario.TraceFilter{{Column: "event_type", Values: []string{"finish", "3"}}}}, osFile(taskFile)), 0, 1)
	recs, err = readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); len(recs) != 14551+501 || st.Filtered != taskRows-14551-501 {
		t.Errorf("FINISH and FAIL: %d records, %d filtered out; want %d", len(recs), st.Filtered, 14551+501)
	}
	ds := Builtin().find("clusterdata-2011-2/task_events")
	if _, err := ds.Code("event_type", "FINSH"); err == nil || err.Error() != `unknown event_type "FINSH"; expected one of SUBMIT, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPDATE_PENDING, UPDATE_RUNNING (or their values)` {
		t.Errorf("unknown code: %v", err)
	}
}

// A bounded random delay reorders records by arrival, deterministically.
func TestReplayDelay(t *testing.T) {
	spec := datasetSpec(t, "clusterdata-2011-2/job_events", scenario.Trace{Speedup: 60, MaxDelay: 60 * des.Second}, osFile(jobFile))
	a, err := readAll(t, NewReader(spec, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := readAll(t, NewReader(spec, 0, 1))
	if len(a) != jobRows || !slices.Equal(a, b) {
		t.Fatalf("%d records; the same seed must give the same records", len(a))
	}
	late, outOfOrder := 0, 0
	var sum des.Time
	for i, r := range a {
		d := r.Arrival - r.EventTime
		if d < 0 || d > des.Second { // 60s of trace time at speed-up 60
			t.Fatalf("record %d delayed %v, want within [0, 1s]", i, d)
		}
		sum += d
		if d > 0 {
			late++
		}
		if i > 0 && r.EventTime < a[i-1].EventTime {
			outOfOrder++
		}
	}
	if mean := sum / des.Time(len(a)); mean < 400*des.Millisecond || mean > 600*des.Millisecond {
		t.Errorf("mean delay %v, want about 500ms (normal, mean max/2, cut to [0, max])", mean)
	}
	if late < jobRows*9/10 || outOfOrder == 0 {
		t.Errorf("%d delayed, %d out of event-time order", late, outOfOrder)
	}
	spec.Seed = 2
	if c, _ := readAll(t, NewReader(spec, 0, 1)); slices.Equal(a, c) {
		t.Error("another seed gave the same delays")
	}
}

const badCSV = `1000,1,a
2000,2,b
garbage
3000,3
,4,c
x1,5,d
0,6,e
4000,"7,x
5000,8,f
1500,9,g
1e4,10,h
9223372036854775807,11,i
`

// Malformed lines are skipped and counted, or stop the reader in strict
// mode; before- and after-window markers and out-of-order rows are
// counted.
func TestReplayBadLines(t *testing.T) {
	zero, end := int64(0), int64(9223372036854775807)
	spec := &TraceSpec{Files: []TraceFile{bytesFile("bad.csv", []byte(badCSV))}, Columns: []string{"ts", "key", "name"},
		Time: 0, TimeUnit: des.Millisecond, Key: 1, Speedup: 1, BeforeWindow: &zero, AfterWindow: &end}
	r := NewReader(spec, 0, 1)
	recs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	var keys []uint32
	for _, rec := range recs {
		keys = append(keys, rec.Key)
	}
	// 4000,"7,x runs to the end of the file in CSV; Go's reader reports it
	// and the lines it swallowed are lost with it
	st := r.Stats()
	t.Logf("keys %v stats %+v", keys, st)
	if !slices.Equal(keys[:2], []uint32{1, 2}) || st.Malformed < 4 || st.BeforeWindow != 1 {
		t.Errorf("keys %v, stats %+v", keys, st)
	}
	if st.FirstMalformed != "bad.csv:3: expected 3 columns, got 1" {
		t.Errorf("first malformed: %q", st.FirstMalformed)
	}

	// without the unterminated quote, every kind of row is seen
	spec.Files = []TraceFile{bytesFile("bad.csv", []byte(strings.Replace(badCSV, `4000,"7,x`, `4000,7,x`, 1)))}
	r = NewReader(spec, 0, 1)
	recs, err = readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	keys = keys[:0]
	for _, rec := range recs {
		keys = append(keys, rec.Key)
	}
	want := TraceStats{Lines: 12, Records: 6, Emitted: 6, Malformed: 4, BeforeWindow: 1, AfterWindow: 1, OutOfOrder: 1,
		FirstMalformed: "bad.csv:3: expected 3 columns, got 1", First: 1000, Last: 10000, End: 9 * des.Second, EOF: true}
	if st := r.Stats(); st != want || !slices.Equal(keys, []uint32{1, 2, 7, 8, 9, 10}) {
		t.Errorf("keys %v, stats %+v; want %+v", keys, st, want)
	}
	// the out-of-order row (1500 after 5000) keeps its event time and
	// arrives with the record before it
	if rec := recs[4]; rec.EventTime != 500*des.Millisecond || rec.Arrival != 4*des.Second {
		t.Errorf("out-of-order record %+v", rec)
	}

	spec.Strict = true
	sr := NewReader(spec, 0, 1)
	_, err = readAll(t, sr)
	var me *MalformedError
	if !errors.As(err, &me) || *me != (MalformedError{File: "bad.csv", Line: 3, Msg: "expected 3 columns, got 1"}) ||
		err.Error() != "line 3 of bad.csv is malformed: expected 3 columns, got 1 (malformed: strict)" {
		t.Errorf("strict: %v", err)
	}
	if sr.Stats().EOF {
		t.Error("strict: a reader stopped by an error is not at the end of the trace")
	}
}

// A truncated gzip file gives its records, then an error that says so.
func TestReplayTruncatedGzip(t *testing.T) {
	data, err := os.ReadFile(jobFile)
	if err != nil {
		t.Fatal(err)
	}
	spec := datasetSpec(t, "clusterdata-2011-2/job_events", scenario.Trace{}, bytesFile("cut.csv.gz", data[:len(data)/2]))
	recs, err := readAll(t, NewReader(spec, 0, 1))
	if err == nil || !strings.HasPrefix(err.Error(), "cut.csv.gz: the file is truncated (unexpected end of the gzip stream near line ") {
		t.Fatalf("err = %v, want a truncated file", err)
	}
	if len(recs) < jobRows/3 || len(recs) >= jobRows {
		t.Errorf("%d records before the cut", len(recs))
	}
	// a file that is not gzip but starts like it
	spec.Files = []TraceFile{bytesFile("fake.gz", []byte{0x1f, 0x8b, 1, 2})}
	if _, err := readAll(t, NewReader(spec, 0, 1)); err == nil || !strings.Contains(err.Error(), "fake.gz: not a readable gzip file") {
		t.Errorf("fake gzip: %v", err)
	}
}

// Several files are one trace; a plain CSV file works as a gzip one.
func TestReplayFilesInSequence(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("3000,3\n4000,4\n"))
	zw.Close()
	spec := &TraceSpec{Columns: []string{"t", "k"}, Time: 0, TimeUnit: des.Second, Key: 1, Speedup: 2, Files: []TraceFile{
		bytesFile("a.csv", []byte("1000,1\r\n2000,2\r\n")), bytesFile("b.csv.gz", buf.Bytes())}}
	recs, err := readAll(t, NewReader(spec, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var want []sim.TraceRecord
	for i, at := range []des.Time{0, 500 * des.Second, 1000 * des.Second, 1500 * des.Second} {
		want = append(want, sim.TraceRecord{Arrival: at, EventTime: at, Key: uint32(i + 1)})
	}
	if !slices.Equal(recs, want) {
		t.Errorf("got %v, want %v", recs, want)
	}
}

func TestParseTimestamp(t *testing.T) {
	for in, want := range map[string]int64{"5611824441": 5611824441, " 12 ": 12, "1.5e3": 1500, "9.537e-06": 0, "2.5": 3} {
		if got, err := parseTimestamp(in); err != nil || got != want {
			t.Errorf("parseTimestamp(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{"": "is empty", "-5": "is negative: -5", "abc": `is not a number: "abc"`, "NaN": `is not a number: "NaN"`, "1e30": `is not a number: "1e30"`} {
		if _, err := parseTimestamp(in); err == nil || err.Error() != msg {
			t.Errorf("parseTimestamp(%q): %v, want %s", in, err, msg)
		}
	}
}

// BenchmarkReplay measures the reader on the real task_events part
// (records per second of wall time, one subtask reading every row).
func BenchmarkReplay(b *testing.B) {
	data, err := os.ReadFile(taskFile)
	if err != nil {
		b.Fatal(err)
	}
	spec := datasetSpec(b, "clusterdata-2011-2/task_events", scenario.Trace{Speedup: 60, KeyColumn: "machine_id"}, bytesFile("t.csv.gz", data))
	for b.Loop() {
		r := NewReader(spec, 0, 1)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(taskRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// A tiny speed-up stretches trace time past the simulated clock's range:
// the serving delay saturates as the timestamps do, so no record arrives
// before its event time (an overflow made arrivals wrap negative, the
// watermark ran ahead of processing time and a window's firing delay
// came out negative: a panic in Histogram.Add).
func TestReplayDelaySaturates(t *testing.T) {
	spec := datasetSpec(t, "clusterdata-2011-2/job_events", scenario.Trace{Speedup: 1e-9, MaxDelay: 30 * des.Second}, osFile(jobFile))
	recs, err := readAll(t, NewReader(spec, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != jobRows {
		t.Fatalf("%d records, want %d", len(recs), jobRows)
	}
	for i, r := range recs {
		if r.Arrival < r.EventTime || r.Arrival < 0 || r.Arrival >= des.Never {
			t.Fatalf("record %d: event time %d, arrival %d; want event time <= arrival < Never", i, r.EventTime, r.Arrival)
		}
	}
}
