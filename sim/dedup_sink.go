package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/dedup"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// dedupState is MillWheel's exactly-once at an at-least-once sink
// (scenario.Dedup; Akidau et al., MillWheel, VLDB 2013, §5.1): every
// record's production was checkpointed with its id before delivery (a
// strong production: a storage write and ProductionWriteTime of latency),
// so a retry resends the very records, ids included (a rewound source
// re-emits its ids); the receiver asks a Bloom filter of recent ids
// first, whose "not seen" is certain, and a "maybe seen" costs a lookup in
// stable storage (the sink's visible set: the ids written), which tells
// a duplicate (dropped, caught) from a false positive (written). The
// filter has two generations, swapped every IDRetention, so it holds the
// ids of the last IDRetention to 2 x IDRetention; a duplicate older than
// that passes the filter as new and is written again (a duplicate). The
// storage's own ids are the visible set, kept for the whole run.
type dedupState struct {
	cfg       scenario.Dedup
	cur, prev *dedup.Bloom
	rotateAt  des.Time
	// counters: records checked, duplicates caught, lookups, false
	// positives (lookups of ids not seen), storage writes (productions
	// checkpointed and receiver ids recorded), latency added in all
	received, caught, lookups, falsePos, writes uint64
	added                                       des.Time
	// expected sums the closed-form false-positive probability of the
	// filter as each new record met it (its fill then): over the new
	// records, the rate the run should measure
	expected float64
}

func newDedupState(cfg scenario.Dedup) *dedupState {
	return &dedupState{cfg: cfg, cur: dedup.NewBloom(uint64(cfg.BloomBits), cfg.Hashes),
		prev: dedup.NewBloom(uint64(cfg.BloomBits), cfg.Hashes), rotateAt: cfg.IDRetention}
}

// filter checks r at now against the ids seen (visible, the stable
// storage): dup is true for a duplicate caught (not to be written);
// otherwise extra is the latency the scheme adds to r.
func (d *dedupState) filter(now des.Time, r *Record, visible *visibleSet) (extra des.Time, dup bool) {
	for d.cfg.IDRetention > 0 && now >= d.rotateAt {
		d.prev, d.cur = d.cur, d.prev
		d.cur.Clear()
		d.rotateAt += d.cfg.IDRetention
	}
	d.received++
	d.writes++ // the sender's strong production of r
	extra = d.cfg.ProductionWriteTime
	key := r.ID ^ mix64(uint64(r.Copy)+0x5bd1e995)
	p := d.closedForm()
	if d.cur.MayContain(key) || d.prev.MayContain(key) {
		d.lookups++
		extra += d.cfg.LookupTime
		if visible.Contains(r.Copy, r.ID) {
			d.caught++
			d.added += extra
			return extra, true
		}
		d.falsePos++
	}
	d.expected += p
	d.cur.Add(key)
	d.writes++ // the receiver records the id
	d.added += extra
	return extra, false
}

// closedForm is the probability, by the closed form (1 − e^(−kn/m))^k of
// each generation at its fill n, that the filter answers "maybe seen" for
// an id it was never given.
func (d *dedupState) closedForm() float64 {
	return 1 - (1-dedup.FalsePositiveRate(d.cur.Bits(), d.cur.Hashes(), d.cur.Added()))*(1-dedup.FalsePositiveRate(d.prev.Bits(), d.prev.Hashes(), d.prev.Added()))
}

// DedupSummary is a MillWheel-style sink's deduplication (summary.json
// delivery.sinks[].dedup).
type DedupSummary struct {
	// Received counts records that reached the sink (replays included);
	// DuplicatesCaught the ones dropped as seen; Lookups the stable-storage
	// lookups (the filter said "maybe seen"), LookupsPerS their rate over
	// the run; FalsePositives the lookups of ids not seen.
	Received         uint64  `json:"received"`
	DuplicatesCaught uint64  `json:"duplicates_caught"`
	Lookups          uint64  `json:"lookups"`
	LookupsPerS      float64 `json:"lookups_per_s"`
	FalsePositives   uint64  `json:"false_positives"`
	// FalsePositiveRate is FalsePositives over the records not seen
	// before, measured over the run; MeanExpectedFalsePositiveRate the
	// same quantity by the closed form (1 − e^(−kn/m))^k: its mean over
	// those records, each at the filter's n when it arrived (both
	// generations); ExpectedFalsePositiveRate the closed form at the
	// filter's n at the end, which is higher than the run's mean while
	// the filter fills.
	FalsePositiveRate             float64 `json:"false_positive_rate"`
	MeanExpectedFalsePositiveRate float64 `json:"mean_expected_false_positive_rate"`
	ExpectedFalsePositiveRate     float64 `json:"expected_false_positive_rate"`
	// LatencyAddedMs is the mean latency the scheme adds per record (the
	// strong production's write, and a lookup where the filter may have
	// seen it); StorageWrites the productions checkpointed plus the ids
	// recorded; StateBytes the filter's two generations plus 16 bytes per
	// id in storage.
	LatencyAddedMs float64 `json:"latency_added_ms"`
	StorageWrites  uint64  `json:"storage_writes"`
	StateBytes     int64   `json:"state_bytes"`
	// FilterBytes is the memory of the Bloom filter's two generations
	// (in StateBytes).
	FilterBytes int64 `json:"filter_bytes"`
}

// summary sums up d after a run of duration run, the sink having made
// delivered ids visible.
func (d *dedupState) summary(run des.Time, delivered uint64) *DedupSummary {
	ds := &DedupSummary{Received: d.received, DuplicatesCaught: d.caught, Lookups: d.lookups, FalsePositives: d.falsePos,
		StorageWrites: d.writes, StateBytes: d.cur.Bytes() + d.prev.Bytes() + int64(delivered)*16, FilterBytes: d.cur.Bytes() + d.prev.Bytes()}
	if s := run.Seconds(); s > 0 {
		ds.LookupsPerS = round6(float64(d.lookups) / s)
	}
	if fresh := d.received - d.caught; fresh > 0 {
		ds.FalsePositiveRate = round6(float64(d.falsePos) / float64(fresh))
		ds.MeanExpectedFalsePositiveRate = round6(d.expected / float64(fresh))
	}
	ds.ExpectedFalsePositiveRate = round6(d.closedForm())
	if d.received > 0 {
		ds.LatencyAddedMs = round6(d.added.Seconds() * 1000 / float64(d.received))
	}
	return ds
}

// dedupText is a MillWheel-style sink's line of the summary table.
func dedupText(k *SinkSummary) string {
	d := k.Dedup
	return fmt.Sprintf("%s dedup (MillWheel): %s caught, %s (%s/s), %s (rate over the run %.4g, closed form over the run %.4g; closed form at the end %.4g), +%s per record, %s, state %s",
		k.Name, plural.Count(int64(d.DuplicatesCaught), "duplicate"), plural.Count(int64(d.Lookups), "lookup"), rateText(d.LookupsPerS),
		plural.Count(int64(d.FalsePositives), "false positive"), d.FalsePositiveRate, d.MeanExpectedFalsePositiveRate, d.ExpectedFalsePositiveRate,
		FormatTime(des.FromSeconds(d.LatencyAddedMs/1000)), plural.Count(int64(d.StorageWrites), "storage write"), scenario.FormatByteSize(d.StateBytes))
}
