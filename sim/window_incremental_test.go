package sim

import (
	"fmt"
	"slices"
	"testing"
)

// TestIncrementalWindowState: an incremental rocksdb checkpoint uploads
// the window, timer and join state written since the previous snapshot
// and still held, as RocksDB's flush makes new SST files of the entries
// put (their latest value) and appended since. A constant source of
// 100/s over 4 keys (records at 10ms, 20ms, ..., 5.00s, each with its
// watermark; every key in every second but with probability about
// 4·0.75^100), checkpoints every second: the barrier of k s comes before
// the record of k s, so checkpoint k covers the 100 records of
// [k−1, k) (99 for the first), checkpoint 6 the record of 5.00s alone
// (one key), and checkpoints 7 and 8 nothing.
//   - aggregate, tumbling 1s with allowed lateness 2s: each checkpoint
//     writes the 4 accumulators of [k−1, k): 256B, while the full state
//     holds the windows not yet cleaned up (a window [s, s+1) lives
//     until the watermark passes s+3s−1ns): 1, 2, then 3 windows of 4
//     keys (768B); at 6s [3, 4), [4, 5) and the one key of [5, 6): 576B.
//   - process: 100 records of 100B appended a checkpoint (10000B; 9900
//     the first, 100 the sixth); the full state is the records of those
//     windows: 99, 199, 299, 300, 300 and then 201 records.
//   - a timer per key (delay 20s, never fired): each checkpoint puts the
//     4 keys' last time (64B each), the sixth one key; full 256B.
//   - an interval join of two such inputs, before = after = 1.5s: the
//     records of a second are buffered (200 of 100B: 20000B), the full
//     state is the 151 records per input at most 1.51s old (30200B;
//     19800 at the first, as both).
func TestIncrementalWindowState(t *testing.T) {
	const src = `{process: schedule, schedule: [{at: 0s, rate: 100/s}, {at: 5s, rate: 0/s}]}, keys: {count: 4}, watermarks: {strategy: punctuated}`
	for _, c := range []struct {
		name, ops    string
		upload, full []int64
	}{
		{"aggregate", "{name: op, input: src, partitioning: hash, service_time: {mean: 0s}, window: {kind: tumbling, size: 1s, allowed_lateness: 2s}}",
			[]int64{256, 256, 256, 256, 256, 64, 0, 0}, []int64{256, 512, 768, 768, 768, 576, 576, 576}},
		{"process", "{name: op, input: src, partitioning: hash, service_time: {mean: 0s}, window: {kind: tumbling, size: 1s, allowed_lateness: 2s, function: process}}",
			[]int64{9900, 10000, 10000, 10000, 10000, 100, 0, 0}, []int64{9900, 19900, 29900, 30000, 30000, 20100, 20100, 20100}},
		{"timer", "{name: op, input: src, partitioning: hash, service_time: {mean: 0s}, timer: {delay: 20s}}",
			[]int64{256, 256, 256, 256, 256, 64, 0, 0}, []int64{256, 256, 256, 256, 256, 256, 256, 256}},
		{"interval join", "{name: op, inputs: [src, right], partitioning: hash, service_time: {mean: 0s}, join: {kind: interval, before: 1500ms, after: 1500ms}}",
			[]int64{19800, 20000, 20000, 20000, 20000, 200, 0, 0}, []int64{19800, 30200, 30200, 30200, 30200, 30200, 30200, 30200}},
	} {
		right := ""
		if c.name == "interval join" {
			right = "\n  - {name: right, arrival: " + src + "}"
		}
		for _, incremental := range []bool{true, false} {
			sc := mustParse(t, fmt.Sprintf(`duration: 8500ms
workers: {count: 1, slots: 2}
checkpoint: {mode: aligned, interval: 1s, incremental: %v}
state_backend: {type: rocksdb}
sources:
  - {name: src, arrival: %s}%s
operators:
  - %s
sinks:
  - {name: out, input: op}
`, incremental, src, right, c.ops))
			_, res := runSim(t, sc, Options{})
			var upload, full []int64
			for _, ck := range res.Checkpoints {
				upload, full = append(upload, ck.StateSize), append(full, ck.FullSize)
			}
			want := c.upload
			if !incremental {
				want = c.full // a full checkpoint uploads all of it
			}
			if !slices.Equal(upload, want) || !slices.Equal(full, c.full) {
				t.Errorf("%s, incremental %v: checkpoints uploaded %v of %v bytes; want %v of %v", c.name, incremental, upload, full, want, c.full)
			}
		}
	}
}
