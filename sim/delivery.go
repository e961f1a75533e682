package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/sim/scenario"
)

// Record ids. A source record's id is its source subtask's sequence number
// (sources in scenario order, subtasks in index order) in the top 23 bits
// and its offset in that subtask's log or socket in the low 40:
//
//	id = seq<<40 | offset
//
// so a replayable source that rewinds re-emits the very ids it emitted
// before, and the ids of one subtask are dense (a compressed bitmap holds
// 10^8 of them in a few MB). A copy of a record (the second and later
// outputs of a flatMap, the copies of a fan-out or a broadcast) keeps the
// id and gets a copy class (Record.Copy) derived from its path by a hash,
// as deterministic as the id.
const (
	offsetBits = 40
	offsetMask = 1<<offsetBits - 1
)

func sourceID(seq int, offset uint64) uint64 { return uint64(seq)<<offsetBits | offset&offsetMask }

// Result records. A record an operator makes (a window's result, a
// join's pair, a timer's output) is identified by what it is, so that a
// replay after a recovery makes the very record it made before: an offset
// in the id space of its operator subtask (seq, as a source subtask's)
// and, where what it is takes more than the offset's 40 bits, more bits
// in its copy class (resultRecord): the copy class is part of a record's
// identity (Record.Copy). A hashed identity keeps resultHashBits of its
// hash above the offset's 40 bits (52 in all: about one collision in 10^8
// results, where 40 bits made one in 10^6), in at most 2^12 copy classes,
// so that a sink's visible set keeps a bounded number of them
// (visibleSet).
const resultHashBits = 12

// resultRecord returns a result record of the id space seq whose
// identity is off (its low 40 bits) and ext (the bits above them).
func resultRecord(seq int, off uint64, ext uint32) Record {
	return Record{ID: sourceID(seq, off), Copy: ext}
}

// hashedResult returns the offset and the bits above it of a result
// identified by hash h (see resultHashBits).
func hashedResult(h uint64) (off uint64, ext uint32) {
	return h & offsetMask, uint32(h>>offsetBits) & (1<<resultHashBits - 1)
}

// hashedRecord returns a result record of the id space seq identified
// by hash h.
func hashedRecord(seq int, h uint64) Record {
	off, ext := hashedResult(h)
	return resultRecord(seq, off, ext)
}

// originSeq and originOffset split a source record's id.
func originSeq(id uint64) int       { return int(id>>offsetBits) & (1<<23 - 1) }
func originOffset(id uint64) uint64 { return id & offsetMask }

// copyClass returns the copy class of copy salt of a record of class
// parent: nonzero, deterministic in the path.
func copyClass(parent uint32, salt uint64) uint32 {
	return uint32(mix64(uint64(parent)^mix64(salt+0x632be59bd9b4e019))) | 1
}

// mix64 is the SplitMix64 finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// unitFloat maps a hash to [0, 1).
func unitFloat(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// outputs returns how many records an operator of vertex salt vsalt and
// selectivity sel emits for the record with id: floor(sel), plus one more
// with probability frac(sel), decided by a hash of the id, so that a
// replayed record is filtered or multiplied exactly as the first time.
func outputs(id, vsalt uint64, sel float64) int {
	n := int(sel)
	if f := sel - float64(n); f > 0 && unitFloat(mix64(id^vsalt)) < f {
		n++
	}
	return n
}

// sinkState is the external system a sink vertex writes to, and what it
// has made visible: Flink's sink semantics (DESIGN.md §3 "Sinks and
// delivery guarantees"; the transactional sink is Flink's
// TwoPhaseCommitSinkFunction).
type sinkState struct {
	mode    string       // the scenario's delivery guarantee, for the summary
	kind    deliveryKind // mode resolved at build: a record's write compares no strings
	visible *visibleSet  // records visible in the external system
	// counts
	delivered   uint64 // distinct ids made visible
	duplicated  uint64 // visible writes of an id already visible
	overwritten uint64 // idempotent: writes of an id already visible (no duplicate)
	skipped     uint64 // at-most-once: replays skipped after a restart
	lost        uint64 // at-most-once: skipped replays never written before
	// at-most-once: the highest offset written per source subtask, and
	// the positions committed when the job last failed
	written []int64
	skipTo  []int64
	// topic is the stored topic a sink writes (Flink's KafkaSink), else
	// nil: what becomes visible is appended to it
	topic *topicLog
	// dedup is MillWheel's deduplication of an at-least-once sink, else
	// nil (dedup_sink.go)
	dedup *dedupState
}

// deliveryKind is a sink's delivery guarantee, resolved from its name when
// the job is built.
type deliveryKind uint8

const (
	deliveryAtLeastOnce deliveryKind = iota
	deliveryAtMostOnce
	deliveryIdempotent
	deliveryTransactional
)

func newSinkState(mode string, sources int) *sinkState {
	k := &sinkState{mode: mode, visible: newVisibleSet(sources)}
	switch mode {
	case scenario.DeliveryAtMostOnce:
		k.kind = deliveryAtMostOnce
	case scenario.DeliveryIdempotent:
		k.kind = deliveryIdempotent
	case scenario.DeliveryTransactional:
		k.kind = deliveryTransactional
	}
	if k.kind == deliveryAtMostOnce {
		k.written = make([]int64, sources)
		k.skipTo = make([]int64, sources)
		for i := range k.written {
			k.written[i], k.skipTo[i] = -1, -1
		}
	}
	return k
}

// makeVisible makes the record (copy, origin) visible and counts it as
// delivered, duplicated or overwritten. A record of copy class 0 that is
// next in its source subtask's order (nearly every one) is added in line.
func (k *sinkState) makeVisible(copy uint32, origin uint64) {
	var isNew bool
	if z := k.visible.zero; copy == 0 {
		isNew = z.addNext(origin) || z.add(origin)
	} else {
		isNew = k.visible.CheckedAdd(copy, origin)
	}
	switch {
	case isNew:
		k.delivered++
	case k.kind == deliveryIdempotent:
		k.overwritten++
	default:
		k.duplicated++
	}
}

// DeliverySummary is the delivery accounting of a run (summary.json
// "delivery"), checked against the ids the sources emitted: the ground
// truth of exactly-once (DESIGN.md §3).
type DeliverySummary struct {
	// Emitted counts distinct records the sources wrote into the job (a
	// replayed record counts once): the records line's emitted (which
	// counts every emission, replays included: totals.records_emitted)
	// less its replayed. EmittedDistinct is the same number under a name
	// that says so (the table's "distinct records emitted"); Emitted
	// stays for the scripts that read it. Replayed counts the emissions of records emitted before
	// (replayable sources rewound to a checkpoint). Dropped counts
	// records non-replayable sources read and never emitted (dropped
	// under back-pressure or while down, or held in their buffers when
	// the job failed over): the records line's dropped.
	Emitted         uint64 `json:"emitted"`
	EmittedDistinct uint64 `json:"emitted_distinct"`
	Replayed        uint64 `json:"replayed"`
	Dropped         uint64 `json:"dropped"`
	// Delivered counts distinct records made visible by the sinks;
	// Duplicated the visible writes of records already visible;
	// Overwritten the writes of idempotent sinks that replaced a record
	// already visible (a replay upserted: no duplicate).
	Delivered   uint64 `json:"delivered"`
	Duplicated  uint64 `json:"duplicated"`
	Overwritten uint64 `json:"overwritten"`
	// Lost counts records that were inside the job (or held by a
	// non-replayable source) when it failed and can never come back:
	// no replay and no persisted channel state restores them.
	Lost uint64 `json:"lost"`
	// LostToRetention counts records appended to a topic that retention
	// deleted before a source read them (a consumer that lagged more than
	// retention.time or retention.size): never emitted into the job, lost
	// all the same, with that cause (topic.go).
	LostToRetention uint64 `json:"lost_to_retention,omitempty"`
	// Shed counts records load shedding dropped at the sources (read and
	// never emitted, shed.go), apart from lost ones; ShedFraction is Shed
	// over the records the shedding sources read (emitted + shed): the
	// relative error of a count over what they emit. ShedByOperators
	// counts the records operators shed in front of them (emitted, never
	// processed; each operator's shed_records): with exactly-once and
	// selectivity 1, emitted = delivered + in flight + uncommitted + lost
	// + to replay + shed by operators.
	Shed            uint64  `json:"shed,omitempty"`
	ShedFraction    float64 `json:"shed_fraction,omitempty"`
	ShedByOperators uint64  `json:"shed_by_operators,omitempty"`
	// InFlight are inside the job at the end (or, while it restarts, in
	// the channel state it will restore); Uncommitted are written to
	// transactional sinks and wait for their checkpoint to complete;
	// ToReplay were emitted before a failure by a replayable source that
	// rewound, and wait in its log to be read again. With exactly-once,
	// emitted = delivered + in flight + uncommitted + lost + to replay.
	InFlight    uint64        `json:"in_flight"`
	Uncommitted uint64        `json:"uncommitted"`
	ToReplay    uint64        `json:"to_replay"`
	Sinks       []SinkSummary `json:"sinks"`
}

// SinkSummary is the delivery accounting of one sink.
type SinkSummary struct {
	Name       string `json:"name"`
	Delivery   string `json:"delivery"`
	Delivered  uint64 `json:"delivered"`
	Duplicated uint64 `json:"duplicated"`
	// Overwritten (idempotent) are writes of a record already visible
	// that replaced it; Skipped (at-most-once) are replays not written
	// after a restart, of which Lost had never been written.
	Overwritten uint64 `json:"overwritten,omitempty"`
	Skipped     uint64 `json:"skipped,omitempty"`
	Lost        uint64 `json:"lost,omitempty"`
	Uncommitted uint64 `json:"uncommitted,omitempty"`
	// Dedup is the deduplication of a MillWheel-style sink (absent for
	// others).
	Dedup *DedupSummary `json:"dedup,omitempty"`
}

func (s *Sim) deliverySummary() *DeliverySummary {
	d := &DeliverySummary{Lost: s.lost, InFlight: s.inFlight(), Sinks: []SinkSummary{}}
	var shedRead uint64 // records read by the sources that shed
	for _, v := range s.vertices {
		if v.shed == nil {
			continue
		}
		shed, came := v.shedCounts()
		if v.kind == KindSource {
			d.Shed += shed
			shedRead += came
		} else {
			d.ShedByOperators += shed
		}
	}
	for _, src := range s.sources {
		d.Emitted += src.emits - src.replayed // written at least once
		d.Replayed += src.replayed
		d.Dropped += src.dropped
		d.LostToRetention += src.lostRetention
		if src.mode == srcLog {
			if src.maxOffset > src.next {
				d.ToReplay += src.maxOffset - src.next
			}
		}
	}
	for _, b := range s.brokerList {
		d.ToReplay += uint64(len(b.awaiting)) // emitted, waiting for their redelivery
	}
	d.EmittedDistinct = d.Emitted
	d.ShedFraction = shedFraction(d.Shed, shedRead)
	if ck := s.restoring(); ck != nil {
		// persisted channel state waits for the restore
		for _, rss := range [2]map[int][]Record{ck.chanState, ck.outState} {
			for _, rs := range rss {
				d.InFlight += uint64(len(rs))
			}
		}
	}
	for _, v := range s.vertices {
		k := v.sink
		if k == nil {
			continue
		}
		ss := SinkSummary{Name: v.name, Delivery: k.mode, Delivered: k.delivered, Duplicated: k.duplicated,
			Overwritten: k.overwritten, Skipped: k.skipped, Lost: k.lost}
		for _, t := range v.subtasks {
			ss.Uncommitted += t.asSink().uncommitted()
		}
		if k.dedup != nil {
			ss.Dedup = k.dedup.summary(s.eng.Now(), k.delivered)
		}
		d.Delivered += ss.Delivered
		d.Duplicated += ss.Duplicated
		d.Overwritten += ss.Overwritten
		d.Uncommitted += ss.Uncommitted
		d.Sinks = append(d.Sinks, ss)
	}
	return d
}

// deliveryText is the delivery line of the summary table.
func deliveryText(d *DeliverySummary, running bool) string {
	s := fmt.Sprintf("delivery: %d distinct records emitted, %d delivered, %d duplicated", d.Emitted, d.Delivered, d.Duplicated)
	for _, k := range d.Sinks {
		if k.Delivery == scenario.DeliveryIdempotent {
			s += fmt.Sprintf(", %d overwritten", d.Overwritten)
			break
		}
	}
	s += fmt.Sprintf(", %d lost", d.Lost)
	if d.Dropped > 0 {
		s += fmt.Sprintf(", %d dropped by the sources (never emitted)", d.Dropped)
	}
	if d.Shed > 0 {
		s += fmt.Sprintf(", %d shed by load shedding (%s of what those sources read, never emitted)", d.Shed, pctPrec(d.ShedFraction))
	}
	if d.ShedByOperators > 0 {
		s += fmt.Sprintf(", %d shed by operators' load shedding (never processed)", d.ShedByOperators)
	}
	if d.LostToRetention > 0 {
		s += fmt.Sprintf(", %d lost to topic retention (deleted before they were read)", d.LostToRetention)
	}
	if d.Replayed > 0 {
		s += fmt.Sprintf(", %d replayed", d.Replayed)
	}
	if d.Uncommitted > 0 {
		s += fmt.Sprintf(", %d uncommitted", d.Uncommitted)
	}
	if d.ToReplay > 0 {
		s += fmt.Sprintf(", %d to replay", d.ToReplay)
		if !running {
			s += " (left in the log: the job will not read them)"
		}
	}
	return s
}

// restoring returns the checkpoint a restarting job will restore, if any.
func (s *Sim) restoring() *checkpoint {
	if s.fo.state != JobRestarting || s.ckpt == nil {
		return nil
	}
	return s.ckpt.latest
}

// Delivery returns the delivery accounting so far (the live view's
// counters); it walks the records in flight, so call it at most a few
// times a second.
func (s *Sim) Delivery() DeliverySummary { return *s.deliverySummary() }

// Recovery returns the failures and restarts so far and the job's state
// (JobRunning, JobRestarting, JobFailed or JobLost).
func (s *Sim) Recovery() RecoverySummary { return *s.fo.summary(s.eng.Now()) }
