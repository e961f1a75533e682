package sim

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
)

// splitJob: topic clicks of 2 partitions; producer rr sends 10/s
// round-robin (partition 0, 1, 0, ...) until 10s, then nothing; producer
// k sends 10/s with one key (key 0, murmur2) for the whole run. Source
// etl (parallelism readers) reads the topic with bounded out-of-orderness
// 500ms every 300ms.
func splitJob(t *testing.T, readers int, idleness string) *Sim {
	t.Helper()
	sc := mustParse(t, `
name: split
duration: 20s
workers: {count: 1, slots: 4}
topics:
  - {name: clicks, partitions: 2}
sources:
  - {name: rr, arrival: {process: schedule, schedule: [{at: 0s, rate: 10/s}, {at: 10s, rate: 0/s}]}, writes: {topic: clicks, partitioner: round-robin}}
  - {name: k, keys: {count: 1}, arrival: {process: constant, rate: 10/s}, writes: {topic: clicks}}
  - name: etl
    parallelism: `+string(rune('0'+readers))+`
    arrival: {process: topic, topic: clicks}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms, auto_watermark_interval: 300ms`+idleness+`}
sinks:
  - {name: out, input: etl}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outputWatermark returns the output watermark of subtask i of vertex name.
func outputWatermark(s *Sim, name string, i int) des.Time {
	for _, v := range s.vertices {
		if v.name == name && v.subtasks[i].wm != nil {
			return v.subtasks[i].wm.out
		}
	}
	return minWatermark
}

// TestSplitWatermarkStalls: one reader owns both partitions. The key 0
// of producer k goes to partition kp = murmur2(0) mod 2, which gets a
// record every 100ms to the end; the other partition q gets rr's records
// of partition q only, the last of them sent at 10s or 9.9s (rr's 100th
// record, of 10s, is its 100th, counter 99, partition 1). Split-local
// watermarks (WatermarkOutputMultiplexer) hold the subtask's watermark at
// q's last event time − 500ms − 1ns to the end; one generator over both
// partitions (before) would follow k's records to 20s − 500ms − 1ns.
func TestSplitWatermarkStalls(t *testing.T) {
	kp := kafka.KeyPartition(0, 2)
	lastQ := 10 * des.Second // rr's 100th record (counter 99) goes to partition 1
	if kp == 1 {
		lastQ = 9900 * des.Millisecond // partition 0 gets the 99th
	}
	stuck := lastQ - 500*des.Millisecond - 1
	s := splitJob(t, 1, "")
	if err := s.RunUntil(context.Background(), 20*des.Second); err != nil {
		t.Fatal(err)
	}
	if got := outputWatermark(s, "etl", 0); got != stuck {
		t.Errorf("watermark of etl at 20s = %s, want %s (partition %d's last event time − 500ms − 1ns)", FormatTime(got), FormatTime(stuck), 1-kp)
	}
}

// TestSplitWatermarkIdleness: with idleness 2s the silent partition's
// IdlenessTimer (checked at every emission, every 300ms) saw rr's record
// of 10s at the check of 10.2s, none at 10.5s, which starts the
// countdown, and marks the split idle at the first check strictly more
// than 2s later, 12.6s: within idleness plus one interval of the
// countdown's start (2.1s <= 2.3s). The multiplexer then leaves it out
// and the subtask's watermark is the other partition's: its largest
// event time at that emission is 12.5s (the emission of 12.6s comes
// before the record of 12.6s), so 12.5s − 500ms − 1ns; at 20s it is the
// emission of 19.8s's, 19.7s − 500ms − 1ns.
func TestSplitWatermarkIdleness(t *testing.T) {
	ctx := context.Background()
	stuck := 9500*des.Millisecond - 1
	if kafka.KeyPartition(0, 2) == 1 {
		t.Fatalf("test assumes key 0 on partition 0")
	}
	s := splitJob(t, 1, ", idleness: 2s")
	if err := s.RunUntil(ctx, 12599*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := outputWatermark(s, "etl", 0); got != stuck {
		t.Errorf("watermark of etl at 12.599s = %s, want still %s (partition 1 not idle yet)", FormatTime(got), FormatTime(stuck))
	}
	if err := s.RunUntil(ctx, 12600*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got, want := outputWatermark(s, "etl", 0), 12000*des.Millisecond-1; got != want {
		t.Errorf("watermark of etl at 12.6s = %d, want %d (partition 0's)", got, want)
	}
	if err := s.RunUntil(ctx, 20*des.Second); err != nil {
		t.Fatal(err)
	}
	if got, want := outputWatermark(s, "etl", 0), 19200*des.Millisecond-1; got != want {
		t.Errorf("watermark of etl at 20s = %d, want %d (partition 0's at the emission of 19.8s)", got, want)
	}
}

// TestSplitWatermarkOnePartition: with two readers each owns one
// partition (one split, as a source that is not a topic's): the owner
// of partition 1 stalls at its last event time, 10s − 500ms − 1ns, the
// owner of partition 0 follows it to the emission of 19.8s, 19.7s −
// 500ms − 1ns; the multiplexer of one split gives out what its generator
// does, so these are the watermarks of one generator per subtask.
func TestSplitWatermarkOnePartition(t *testing.T) {
	s := splitJob(t, 2, "")
	if err := s.RunUntil(context.Background(), 20*des.Second); err != nil {
		t.Fatal(err)
	}
	tp := s.plan.Topics[0]
	for i := range 2 {
		owned := tp.Owned(i, 2)
		if len(owned) != 1 {
			t.Fatalf("subtask %d owns partitions %v, want one", i, owned)
		}
		want := 19200*des.Millisecond - 1
		if owned[0] == 1 {
			want = 9500*des.Millisecond - 1
		}
		if got := outputWatermark(s, "etl", i); got != want {
			t.Errorf("watermark of etl subtask %d (partition %d) at 20s = %d, want %d", i, owned[0], got, want)
		}
	}
}
