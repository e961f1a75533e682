package sim_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

// samples is an Observer that keeps a copy of every sample.
type samples struct{ got []sim.Sample }

func (o *samples) Sample(s *sim.Sample) {
	c := *s
	c.Rows = slices.Clone(s.Rows)
	c.Partitions = slices.Clone(s.Partitions)
	o.got = append(o.got, c)
}

func (o *samples) Event(sim.Event) {}

func observe(t *testing.T, sc *scenario.Scenario) (*sim.Summary, []sim.Sample) {
	t.Helper()
	var o samples
	res, err := sim.Run(context.Background(), sc, sim.Options{Observer: &o})
	if err != nil {
		t.Fatal(err)
	}
	return &res.Summary, o.got
}

// row returns the row of vertex v, subtask i (-1: the vertex) of smp.
func row(t *testing.T, smp *sim.Sample, v string, i int) sim.Row {
	t.Helper()
	for _, r := range smp.Rows {
		if r.Vertex == v && r.Subtask == i {
			return r
		}
	}
	t.Fatalf("no row %s[%d] at %s", v, i, sim.FormatTime(smp.Time))
	return sim.Row{}
}

// TestPartitionSamples: every metrics sample of a job reading a topic has
// a row per partition (partitions.csv) whose lag is log end − position
// and sums to the reader subtask's source_lag_records; the lag grows at
// λ − μ = 1000 − 2 × 300 = 400 records/s and its age at 0.4 s per second;
// the offsets committed follow the checkpoints; the last sample's rows
// are summary.json's partitions_detail.
func TestPartitionSamples(t *testing.T) {
	sum, smps := observe(t, parse(t, "t.yaml", []byte(topicJob(1000, 300, 2, "40s", "1h", "checkpoint: {mode: aligned, interval: 10s}"))))
	if len(smps) != 40 {
		t.Fatalf("%d samples, want 40", len(smps))
	}
	for i := range smps {
		smp := &smps[i]
		if len(smp.Partitions) != 4 {
			t.Fatalf("%s: %d partition rows, want 4", sim.FormatTime(smp.Time), len(smp.Partitions))
		}
		lag := map[int]uint64{}
		for _, p := range smp.Partitions {
			if p.Topic != "clicks" || p.Reader != "etl" {
				t.Errorf("row %+v: want topic clicks, reader etl", p)
			}
			if p.Lag != p.LogEndOffset-p.Position || p.LogStartOffset != 0 {
				t.Errorf("%s partition %d: lag %d, log %d..%d, position %d: want lag = log end − position, log start 0 (retention 1h)",
					sim.FormatTime(smp.Time), p.Partition, p.Lag, p.LogStartOffset, p.LogEndOffset, p.Position)
			}
			// checkpoints at 10s, 20s, 30s, 40s complete within the
			// second they are triggered
			if ck := smp.Time.Seconds() >= 11; ck != (p.Committed >= 0) {
				t.Errorf("%s partition %d: committed %d, want one from the checkpoint of 10s on", sim.FormatTime(smp.Time), p.Partition, p.Committed)
			}
			if p.Committed > int64(p.Position) {
				t.Errorf("%s partition %d: committed %d past position %d", sim.FormatTime(smp.Time), p.Partition, p.Committed, p.Position)
			}
			lag[p.Subtask] += p.Lag
		}
		for st := range 2 {
			if got := row(t, smp, "etl", st).SourceLag; uint64(got) != lag[st] {
				t.Errorf("%s: etl[%d] source_lag_records %d, partitions' lag %d", sim.FormatTime(smp.Time), st, got, lag[st])
			}
		}
	}
	for _, at := range []int{20, 40} {
		smp := &smps[at-1]
		var pending uint64
		var age float64
		for _, p := range smp.Partitions {
			pending += p.Lag
			age = max(age, p.LagS)
		}
		within(t, fmt.Sprintf("pending records at %ds", at), float64(pending), 400*float64(at), 0.02)
		within(t, fmt.Sprintf("lag age at %ds", at), age, 0.4*float64(at), 0.02)
	}
	last := smps[len(smps)-1].Partitions
	want := topicSummary(t, sum, "clicks").PartitionList
	for i := range want {
		if i >= len(last) || !reflect.DeepEqual(last[i].PartitionSummary, want[i]) {
			t.Fatalf("last sample's partitions %+v, summary's %+v", last, want)
		}
	}
}

// TestCounterColumns: a MillWheel sink's dedup counts, so far at each
// sample, end at the summary's; a run has the columns of what it uses
// only, and a row without the mechanism has NoCount.
func TestCounterColumns(t *testing.T) {
	sum, smps := observe(t, parse(t, "t.yaml", []byte(millwheel(1, "8388608", false))))
	last := &smps[len(smps)-1]
	if want := []string{"dedup_received", "dedup_duplicates_caught", "dedup_lookups", "dedup_false_positives", "dedup_storage_writes"}; !slices.Equal(last.Counters, want) {
		t.Fatalf("counter columns %q, want %q", last.Counters, want)
	}
	d := sinkOf(t, sum, "millwheel").Dedup
	want := []int64{int64(d.Received), int64(d.DuplicatesCaught), int64(d.Lookups), int64(d.FalsePositives), int64(d.StorageWrites)}
	if got := row(t, last, "millwheel", -1).Counters; !slices.Equal(got, want) || d.DuplicatesCaught == 0 {
		t.Errorf("millwheel's counts at the end %v, summary's %v (duplicates caught > 0)", got, want)
	}
	for _, r := range []sim.Row{row(t, last, "millwheel", 0), row(t, last, "barriers", -1), row(t, last, "sensors", -1)} {
		for _, n := range r.Counters {
			if n != sim.NoCount {
				t.Errorf("%s[%d]: counters %v, want NoCount", r.Vertex, r.Subtask, r.Counters)
				break
			}
		}
	}
	// a run without shedding or dedup has no counter columns
	_, smps = observe(t, parse(t, "t.yaml", []byte(topicJob(1000, 600, 1, "5s", "1h", ""))))
	if c := smps[0].Counters; c != nil || smps[0].Rows[0].Counters != nil {
		t.Errorf("counter columns %q (row %v), want none", c, smps[0].Rows[0].Counters)
	}
}
