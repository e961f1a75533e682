package sim

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// taskEvents reads part 1 of the Google cluster trace's task events
// (datasets/testdata): the timestamp (µs, column 0) and event type
// (column 5) of each event.
func taskEvents(t *testing.T) (ts []int64, types []uint32) {
	t.Helper()
	f, err := os.Open("../datasets/testdata/task_events-part-00001-of-00500.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(z)
	r.FieldsPerRecord = -1
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		x, err1 := strconv.ParseInt(rec[0], 10, 64)
		y, err2 := strconv.ParseUint(rec[5], 10, 32)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %v: %v %v", rec, err1, err2)
		}
		ts, types = append(ts, x), append(types, uint32(y))
	}
	return ts, types
}

// recordTrace serves records in arrival order.
type recordTrace struct {
	recs []TraceRecord
	i    int
}

func (s *recordTrace) Next() (TraceRecord, error) {
	if s.i == len(s.recs) {
		return TraceRecord{}, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

// TestTraceCountsPerMinute is the course's assignment on the real trace:
// task events counted by event type in tumbling windows of one minute of
// the trace (1s here at speed-up 60). The counts of every window that
// fired are compared with a direct count of the CSV:
//   - without delay (events in order), each equals the CSV's count exactly,
//     and nothing is late;
//   - with a random delay of up to 30s of trace time (0.5s here: the
//     course's bounded delay, drawn per event by a hash) and a bound of
//     500ms, the same, exactly;
//   - with that delay and a bound of 100ms, each window's count is the
//     CSV's less the events dropped as late from it, and the events lost
//     over all the windows the watermark passed equal
//     numLateRecordsDropped.
func TestTraceCountsPerMinute(t *testing.T) {
	ts, types := taskEvents(t)
	const speedup = 60
	t0 := ts[0]
	at := func(i int) des.Time { return des.Time((ts[i] - t0) * 1000 / speedup) }
	direct := map[[2]int64]int64{} // (event type, minute) -> events
	for i := range ts {
		direct[[2]int64{int64(types[i]), int64(at(i) / des.Second)}]++
	}
	for _, c := range []struct {
		name         string
		delay, bound des.Time
		exact        bool
	}{
		{"no delay", 0, 1, true},
		{"delay 0.5s, bound 500ms", 500 * des.Millisecond, 500 * des.Millisecond, true},
		{"delay 0.5s, bound 100ms", 500 * des.Millisecond, 100 * des.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs := make([]TraceRecord, len(ts))
			for i := range ts {
				d := des.Time(unitFloat(mix64(uint64(i)+0x1234)) * float64(c.delay))
				recs[i] = TraceRecord{Arrival: at(i) + d, EventTime: at(i), Key: types[i]}
			}
			sort.SliceStable(recs, func(a, b int) bool { return recs[a].Arrival < recs[b].Arrival })
			sc := mustParse(t, fmt.Sprintf(`
name: trace-counts
duration: 90s
workers: {count: 1, slots: 2}
sources:
  - name: tasks
    arrival: {process: trace, trace: {dataset: clusterdata-2011-2/task_events, speedup: 60, key_column: event_type}}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: %dns}
operators:
  - {name: count, input: tasks, partitioning: hash, service_time: {mean: 1us}, window: {kind: tumbling, size: 1s}}
sinks:
  - {name: out, input: count}
`, c.bound))
			s, err := New(sc, Options{OpenTrace: func(string, int, int) (Trace, error) { return &recordTrace{recs: recs}, nil }})
			if err != nil {
				t.Fatal(err)
			}
			got := map[[2]int64]int64{}
			win := s.vertices[1].win
			win.onFire = func(key uint32, start des.Time, _ uint32, n int64) {
				got[[2]int64{int64(key), int64(start / des.Second)}] = n
			}
			if err := s.RunUntil(context.Background(), sc.Duration); err != nil {
				t.Fatal(err)
			}
			var lost, windows int64
			wm := s.vertices[1].subtasks[0].wm.in // the windows it passed have fired
			for k, n := range direct {
				if des.Time(k[1]+1)*des.Second-1 > wm {
					continue // the last minute: no watermark passes it
				}
				windows++
				g := got[k]
				if c.exact && g != n {
					t.Errorf("event type %d, minute %d: counted %d, the CSV has %d", k[0], k[1], g, n)
				}
				if g > n {
					t.Errorf("event type %d, minute %d: counted %d, more than the CSV's %d", k[0], k[1], g, n)
				}
				lost += n - g
			}
			dropped := int64(win.lateDropped)
			if c.exact && dropped != 0 {
				t.Errorf("numLateRecordsDropped %d, want 0", dropped)
			}
			if !c.exact && (lost != dropped || lost == 0) {
				t.Errorf("events missing from the counts %d, numLateRecordsDropped %d: want them equal and not 0", lost, dropped)
			}
			t.Logf("%d windows compared, %d events missing, %d dropped as late", windows, lost, dropped)
		})
	}
}
