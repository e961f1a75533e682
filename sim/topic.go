package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// A topic (plan.Topic) is a Kafka-like log kept as offsets and counts,
// never as stored records: a source subtask that reads it (Flink's
// KafkaSource reader) regenerates the records its producers appended to
// the partitions it owns, from the producers' seeded streams, as a
// replayable source re-reads its log. Its read cursor is its consumer
// position; a retention cursor finds the log start; the topic's append
// cursor (topicEnd), shared by every reader, tells how far each
// partition has grown by now (the log end offsets, for the lag and for
// retention by size). A checkpoint copies the read cursor (the offsets a
// completed checkpoint commits) and a recovery restores it (the rewind).
//
// Producer instance k (subtask k of a producer source) sends its records
// at its arrival times with keys from its key stream; its partitioner
// (kafka.Partitioner) chooses each record's partition. A partition's
// leader appends at most topic.bandwidth bytes/s (appends queue behind
// it), and a record can be read append_latency after its append. Records
// are read in the order the producers sent them, over the partitions the
// reader owns (KafkaSourceEnumerator.getSplitOwner); retention deletes a
// record older than retention.time, or beyond retention.size of its
// partition, when the reader comes to it (Kafka's OffsetOutOfRange reset to
// the log start): the reader skips it, and it is lost to retention.

// producerStream is one producer instance as a reader regenerates it.
type producerStream struct {
	gen    *arrivalGen
	genPCG *des.Rand // gen's stream
	keyPCG *des.Rand // the key stream
	keys   *keyDist
	part   kafka.Partitioner
	size   int64
	// the head: the next record the instance sends
	at   des.Time // des.Never when it sends no more
	key  uint32
	p    int
	name string
}

// streamSnap is a producerStream's position.
type streamSnap struct {
	gen            arrivalGen
	genPCG, keyPCG des.Rand
	part           kafka.Partitioner
	at             des.Time
	key            uint32
	p              int
}

// topicReader is one cursor over the partitions a reader subtask owns; it
// is the arrival process (arrivals) of a source of process topic.
type topicReader struct {
	topic   *plan.Topic
	owned   []bool // by partition
	nOwned  int
	streams []*producerStream
	horizon des.Time // no record is sent after it (the run's end)
	recSize int64    // the first producer's record size (retention by size)
	// free is, per partition, when its leader ends the last append
	// (bandwidth); count the records of each partition passed so far
	// (returned by next), the current one included.
	free  []des.Time
	count []uint64
	// lost counts, per partition, the records retention deleted before
	// this cursor read them, and behind the age of the oldest of them
	// when it came to it (accounting: a restore keeps them)
	lost   []uint64
	behind des.Time
	// the current record: readable at vt, sent at sent, its key,
	// partition (-1 when none) and size
	vt, sent des.Time
	key      uint32
	part     int
	size     int64
	// log is the stored topic a cursor of a topic that sinks write reads
	// (topic_log.go), with rec its current record; nil for a topic of
	// producers
	log *topicLog
	rec Record
}

// topicSnap is a topicReader's position (a checkpoint's offsets).
type topicSnap struct {
	streams  []streamSnap
	free     []des.Time
	count    []uint64
	vt, sent des.Time
	key      uint32
	part     int
	size     int64
	rec      Record
}

// producerKeys returns the key distributions of the producers of tp, in
// order: shared by every cursor (a zipf table is built once).
func producerKeys(tp *plan.Topic) []*keyDist {
	var kds []*keyDist
	for _, ps := range tp.Producers {
		kd := newKeyDist(ps.Keys)
		kds = append(kds, &kd)
	}
	return kds
}

// newTopicReader returns a cursor at the start of the partitions subtask
// i of a reader of parallelism readers owns; keys are producerKeys(tp),
// log the stored log of a topic that sinks write (else nil).
func newTopicReader(tp *plan.Topic, i, readers int, seed uint64, horizon des.Time, keys []*keyDist, log *topicLog) *topicReader {
	r := &topicReader{topic: tp, owned: make([]bool, tp.Partitions), horizon: horizon, log: log,
		free: make([]des.Time, tp.Partitions), count: make([]uint64, tp.Partitions), lost: make([]uint64, tp.Partitions), part: -1}
	for _, p := range tp.Owned(i, readers) {
		r.owned[p] = true
		r.nOwned++
	}
	for j, ps := range tp.Producers {
		for k := range ps.Parallelism {
			base := "producer/" + ps.Name + "/" + strconv.Itoa(k)
			st := &producerStream{genPCG: des.StreamRand(seed, base+"/arrivals"), keyPCG: des.StreamRand(seed, base+"/keys"),
				keys: keys[j], size: ps.RecordSize, name: ps.Name}
			st.gen = newArrivalGen(ps.Arrival, st.genPCG)
			pcg := des.StreamPCG(seed, base+"/partitioner")
			st.part = kafka.NewPartitioner(PartitionerKind(ps.Writes.Partitioner), tp.Partitions, ps.Writes.BatchSize, pcg.Uint64(), pcg.Uint64())
			st.advance()
			r.streams = append(r.streams, st)
		}
	}
	if len(tp.Producers) > 0 {
		r.recSize = tp.Producers[0].RecordSize
	}
	return r
}

// PartitionerKind maps the scenario's partitioner (scenario.Producer's
// Partitioner) to Kafka's: the one place, for both engines.
func PartitionerKind(name string) kafka.Kind {
	switch name {
	case scenario.PartitionerRoundRobin:
		return kafka.RoundRobin
	case scenario.PartitionerSticky:
		return kafka.Sticky
	}
	return kafka.Murmur2Key
}

// advance draws the instance's next record.
func (st *producerStream) advance() {
	st.at = st.gen.next()
	if st.at == des.Never {
		return
	}
	st.key = st.keys.sample(st.keyPCG)
	st.p = st.part.Partition(st.key, st.size)
}

// next moves to the next record on an owned partition and returns when
// it can be read; des.Never when none comes before the horizon.
func (r *topicReader) next() des.Time {
	if r.nOwned == 0 {
		r.part = -1
		return des.Never
	}
	if r.log != nil {
		return r.nextStored()
	}
	for {
		var st *producerStream
		for _, s := range r.streams {
			if s.at != des.Never && (st == nil || s.at < st.at) {
				st = s
			}
		}
		if st == nil || st.at > r.horizon {
			r.part = -1
			return des.Never
		}
		sent, key, p, size := st.at, st.key, st.p, st.size
		st.advance()
		if !r.owned[p] {
			continue
		}
		v := sent
		if bw := r.topic.Bandwidth; bw > 0 {
			v = max(v, r.free[p]) + des.FromSeconds(float64(size)/bw)
			r.free[p] = v
		}
		r.count[p]++
		r.vt, r.sent, r.key, r.part, r.size = v+r.topic.AppendLatency, sent, key, p, size
		return r.vt
	}
}

// split returns the index of owned partition p among the partitions the
// cursor owns, in partition order (its split's watermark generator); 0
// for none.
func (r *topicReader) split(p int) int {
	i := 0
	for q := 0; q < p && q < len(r.owned); q++ {
		if r.owned[q] {
			i++
		}
	}
	return i
}

// position returns the offset of partition p the cursor stands at: the
// records of p before its current one.
func (r *topicReader) position(p int) uint64 { return offsetOf(r.count, r.part, p) }

// position returns the offset of partition p in a snapshot.
func (sn *topicSnap) position(p int) uint64 { return offsetOf(sn.count, sn.part, p) }

// offsetOf is the offset of partition p of a cursor that passed count
// records of each partition, its current one (of partition cur) included.
func offsetOf(count []uint64, cur, p int) uint64 {
	if cur == p {
		return count[p] - 1
	}
	return count[p]
}

// deleted reports whether retention deleted the current record by now,
// given the log end offset of its partition (leo).
func (r *topicReader) deleted(now des.Time, leo uint64) bool {
	if r.part < 0 {
		return false
	}
	ret := r.topic.Retention
	if ret.Time > 0 && now-r.vt > ret.Time {
		return true
	}
	if size := r.recordSize(); ret.Size > 0 && size > 0 {
		keep := uint64(ret.Size / size) // whole records a partition retains
		if off := r.position(r.part); leo > off && leo-off > keep {
			return true
		}
	}
	return false
}

// recordSize is the size of the topic's records for retention by size:
// the first producer's, or for a stored topic the current record's.
func (r *topicReader) recordSize() int64 {
	if r.log != nil {
		return r.size
	}
	return r.recSize
}

// snapshot returns the cursor's position.
func (r *topicReader) snapshot() *topicSnap {
	sn := &topicSnap{free: append([]des.Time(nil), r.free...), count: append([]uint64(nil), r.count...),
		vt: r.vt, sent: r.sent, key: r.key, part: r.part, size: r.size, rec: r.rec}
	for _, st := range r.streams {
		sn.streams = append(sn.streams, streamSnap{gen: *st.gen, genPCG: *st.genPCG, keyPCG: *st.keyPCG, part: st.part,
			at: st.at, key: st.key, p: st.p})
	}
	return sn
}

// restore sets the cursor back to a position of snapshot.
func (r *topicReader) restore(sn *topicSnap) {
	copy(r.free, sn.free)
	copy(r.count, sn.count)
	r.vt, r.sent, r.key, r.part, r.size, r.rec = sn.vt, sn.sent, sn.key, sn.part, sn.size, sn.rec
	for i, st := range r.streams {
		s := &sn.streams[i]
		*st.gen, *st.genPCG, *st.keyPCG = s.gen, s.genPCG, s.keyPCG
		st.part, st.at, st.key, st.p = s.part, s.at, s.key, s.p
	}
}

// logEnd returns the log end offset of partition p by now: the records
// appended to it and readable (the append cursor, advanced by lag).
func (src *source) logEnd(now des.Time, p int) uint64 {
	if l := src.topic.log; l != nil {
		return l.leo(p)
	}
	return src.t.s.topicEnd(src.topic.topic).leo(now, p)
}

// topicLag is the lag of a source of a topic at now: the records of its
// partitions appended and not yet read (its record in hand, taken but
// not written, is not read yet: the cursor moves past it once written).
func (src *source) topicLag(now des.Time) uint64 {
	var n uint64
	r := src.topic
	for p, own := range r.owned {
		if own {
			if leo, pos := src.logEnd(now, p), r.position(p); leo > pos {
				n += leo - pos
			}
		}
	}
	return n
}

// topicEnd is the append cursor of a topic of producers, shared by its
// readers: it regenerates every record once, whatever the readers, and
// gives each partition's log end offset.
type topicEnd struct {
	r    *topicReader // owns every partition
	next des.Time     // when r's current record is appended
}

// topicEnd returns the append cursor of tp, made on first use.
func (s *Sim) topicEnd(tp *plan.Topic) *topicEnd {
	if s.topicEnds == nil {
		s.topicEnds = map[*plan.Topic]*topicEnd{}
	}
	e := s.topicEnds[tp]
	if e == nil {
		e = &topicEnd{r: newTopicReader(tp, 0, 1, s.sc.Seed, s.duration, s.topicKeys(tp), nil)}
		e.next = e.r.next()
		s.topicEnds[tp] = e
	}
	return e
}

// leo returns the log end offset of partition p at now.
func (e *topicEnd) leo(now des.Time, p int) uint64 {
	for e.next <= now {
		e.next = e.r.next()
	}
	if e.r.part == p {
		return e.r.count[p] - 1 // its current record comes after now
	}
	return e.r.count[p]
}

// logStart returns the log start offset of partition p at now: the first
// record retention keeps, by time (the retention cursor stands at the
// first record not older than retention.time) and by size.
func (src *source) logStart(now des.Time, p int) uint64 {
	if src.topic.log != nil {
		return src.storedStart(now, p)
	}
	rc := src.retain
	if d := src.topic.topic.Retention.Time; d > 0 {
		for rc.part >= 0 && now-rc.vt > d {
			rc.next()
		}
	}
	start := rc.position(p)
	if rc.part < 0 && rc.nOwned > 0 {
		start = rc.count[p] // every record sent was deleted
	}
	leo := src.logEnd(now, p)
	if sz, size := src.topic.topic.Retention.Size, src.topic.recSize; sz > 0 && size > 0 {
		if keep := uint64(sz / size); leo > keep {
			start = max(start, leo-keep)
		}
	}
	return min(start, leo)
}

// expire skips the records retention deleted before the reader came to
// them: each is lost to retention unless it was emitted before a rewind.
func (src *source) expire(now des.Time) {
	r := src.topic
	for !src.ended && r.part >= 0 && r.deleted(now, src.logEnd(now, r.part)) {
		src.next++
		if src.next > src.maxOffset {
			src.maxOffset = src.next
			src.lostRetention++
			if r.lost[r.part]++; r.lost[r.part] == 1 {
				// the first of this reader's partition: when the loss
				// begins (the diagnosis sums it up at the end)
				src.t.s.emit(Event{Type: EventLostToRetention, Vertex: src.t.v.name,
					Message: fmt.Sprintf("%s[%d] came to records of topic %s partition %d that retention had deleted (it is %s behind): they are skipped, lost",
						src.t.v.name, src.t.index, r.topic.Name, r.part, FormatTime(now-r.vt))})
			}
			r.behind = max(r.behind, now-r.vt)
		}
		src.draw()
	}
}

// PartitionSummary is one partition of a topic as one reader sees it
// (summary.json topics[].partitions[]), as Kafka's consumer-groups tool
// and Flink's KafkaSource metrics report it.
type PartitionSummary struct {
	Partition int `json:"partition"`
	// Reader is the source vertex and Subtask the subtask that owns it
	// (KafkaSourceEnumerator.getSplitOwner).
	Reader  string `json:"reader"`
	Subtask int    `json:"subtask"`
	// LogStartOffset is the first offset retention keeps, LogEndOffset
	// the offset the next append gets; Position the reader's next
	// offset; Committed the offset the latest completed checkpoint
	// committed (KafkaSourceReader commits on notifyCheckpointComplete),
	// -1 before any.
	LogStartOffset uint64 `json:"log_start_offset"`
	LogEndOffset   uint64 `json:"log_end_offset"`
	Position       uint64 `json:"position"`
	Committed      int64  `json:"committed_offset"`
	// Lag is log end offset − position, in records (Kafka's
	// records-lag); LagS the age of the oldest unread record of the
	// reader, in simulated seconds.
	Lag  uint64  `json:"lag_records"`
	LagS float64 `json:"lag_s"`
	// LostToRetention counts the records of the partition retention
	// deleted before the reader read them.
	LostToRetention uint64 `json:"lost_to_retention"`
	// RetainedBytes are the bytes the partition holds: (log end − log
	// start) records of the producers' record size.
	RetainedBytes int64 `json:"retained_bytes"`
}

// TopicSummary is a topic at the end of the run, per reader.
type TopicSummary struct {
	Name       string `json:"name"`
	Partitions int    `json:"partitions"`
	// RecordsLagMax is the largest partition lag (Kafka consumer's
	// records-lag-max); PendingRecords the sum (Flink's pendingRecords).
	RecordsLagMax  uint64 `json:"records_lag_max"`
	PendingRecords uint64 `json:"pending_records"`
	// MaxRetainedBytes is the most bytes one partition retains at the
	// end (partitions_detail[].retained_bytes): what a per-partition disk
	// budget (retention.bytes) is measured against.
	MaxRetainedBytes int64 `json:"max_partition_retained_bytes"`
	// LostToRetention counts records retention deleted before the
	// readers read them.
	LostToRetention uint64 `json:"lost_to_retention"`
	// MaxBehindS is the age of the oldest deleted record a reader came
	// to, in simulated seconds (how far it fell behind; 0 without loss).
	MaxBehindS    float64            `json:"max_behind_s"`
	PartitionList []PartitionSummary `json:"partitions_detail"`
	// behindS is MaxBehindS per reader (source vertex), for the
	// diagnosis's line per reader
	behindS map[string]float64
}

// topicSummaries sums up the topics job sources read at now: per
// reader, its lag and loss (a topic only consumer groups read is theirs,
// in consumer_groups[]; one nobody reads has no lag to show).
func (s *Sim) topicSummaries(now des.Time) []TopicSummary {
	var out []TopicSummary
	for _, tp := range s.plan.Topics {
		readers := s.topicReaders(tp)
		if len(readers) == 0 {
			continue
		}
		ts := TopicSummary{Name: tp.Name, Partitions: tp.Partitions, PartitionList: []PartitionSummary{}, behindS: map[string]float64{}}
		for _, src := range readers {
			ts.LostToRetention += src.lostRetention
			b := round6(src.topic.behind.Seconds())
			ts.MaxBehindS = max(ts.MaxBehindS, b)
			ts.behindS[src.t.v.name] = max(ts.behindS[src.t.v.name], b)
			ts.PartitionList = src.partitions(now, ts.PartitionList)
		}
		for _, ps := range ts.PartitionList {
			ts.RecordsLagMax = max(ts.RecordsLagMax, ps.Lag)
			ts.MaxRetainedBytes = max(ts.MaxRetainedBytes, ps.RetainedBytes)
			ts.PendingRecords += ps.Lag
		}
		out = append(out, ts)
	}
	return out
}

// topicReaders returns the source subtasks that read tp, in the order of
// s.sources.
func (s *Sim) topicReaders(tp *plan.Topic) []*source {
	var out []*source
	for _, src := range s.sources {
		if src.topic != nil && src.topic.topic == tp {
			out = append(out, src)
		}
	}
	return out
}

// partitions appends to out the partitions the reader subtask src owns
// as they stand at now, in partition order: offsets, the offset the
// latest completed checkpoint committed, lag and retained bytes
// (summary.json's partitions_detail, partitions.csv's rows).
func (src *source) partitions(now des.Time, out []PartitionSummary) []PartitionSummary {
	s, tp := src.t.s, src.topic.topic
	var committed *topicSnap
	if s.ckpt != nil && s.ckpt.latest != nil {
		committed = s.ckpt.latest.sources[src.seq].topic
	}
	age := 0.0
	if !src.ended && src.vt <= now {
		age = (now - src.vt).Seconds()
	}
	for p := range tp.Partitions {
		if !src.topic.owned[p] {
			continue
		}
		leo, pos := src.logEnd(now, p), src.topic.position(p)
		start := src.logStart(now, p)
		ps := PartitionSummary{Partition: p, Reader: src.t.v.name, Subtask: src.t.index, LogStartOffset: start,
			LogEndOffset: leo, Position: pos, Committed: -1, RetainedBytes: int64(leo-start) * src.topic.recSize,
			LostToRetention: src.topic.lost[p]}
		if committed != nil {
			ps.Committed = int64(committed.position(p))
		}
		if leo > pos {
			ps.Lag = leo - pos
			ps.LagS = round6(age)
		}
		out = append(out, ps)
	}
	return out
}

// TopicCursor reads the partitions of a topic one reader subtask owns, as
// a source of process topic does (records in the order the producers sent
// them, readable append_latency after their append), for another engine
// on the same kernel: the micro-batch engine's direct Kafka input reads
// the very records a Flink job would. It keeps offsets and counts, never
// records; retention is the caller's (see Deleted).
type TopicCursor struct{ r *topicReader }

// NewTopicCursor returns a cursor at the start of the partitions that
// subtask of a reader of parallelism readers owns
// (KafkaSourceEnumerator.getSplitOwner); no record is sent after horizon.
// Two cursors of the same arguments read the same records.
func NewTopicCursor(tp *plan.Topic, subtask, readers int, seed uint64, horizon des.Time) *TopicCursor {
	return &TopicCursor{r: newTopicReader(tp, subtask, readers, seed, horizon, producerKeys(tp), nil)}
}

// Next moves to the next record and returns when it can be read, or
// des.Never when no more come.
func (c *TopicCursor) Next() des.Time { return c.r.next() }

// Record returns the current record: when its producer sent it, its key
// id, its partition and its size in bytes.
func (c *TopicCursor) Record() (sent des.Time, key uint32, partition int, size int64) {
	return c.r.sent, c.r.key, c.r.part, c.r.size
}

// Offset returns the cursor's offset in partition p: the records of p
// before the current one.
func (c *TopicCursor) Offset(p int) uint64 { return c.r.position(p) }

// Deleted reports whether the topic's retention deleted the current record
// by now, given the log end offset of its partition.
func (c *TopicCursor) Deleted(now des.Time, logEnd uint64) bool { return c.r.deleted(now, logEnd) }

// topicKeys returns the producers' key distributions of tp, made once per
// run.
func (s *Sim) topicKeys(tp *plan.Topic) []*keyDist {
	if s.producerKeys == nil {
		s.producerKeys = map[*plan.Topic][]*keyDist{}
	}
	if kds, ok := s.producerKeys[tp]; ok {
		return kds
	}
	kds := producerKeys(tp)
	s.producerKeys[tp] = kds
	return kds
}

// topicLoss says what retention took from each reader of a topic, one
// line per reader that lost records: "consumer etl fell behind topic
// clicks partition 3 by 41m; retention is 30m: 2100000 records lost",
// naming the partition that lost the most.
func topicLoss(tp *plan.Topic, ts *TopicSummary) []string {
	type reader struct {
		lost, worst uint64
		part        int
	}
	by := map[string]*reader{}
	var names []string
	for _, p := range ts.PartitionList {
		r := by[p.Reader]
		if r == nil {
			r = &reader{part: -1}
			by[p.Reader] = r
			names = append(names, p.Reader)
		}
		r.lost += p.LostToRetention
		if p.LostToRetention > r.worst {
			r.worst, r.part = p.LostToRetention, p.Partition
		}
	}
	var out []string
	for _, name := range names {
		r := by[name]
		if r.lost == 0 {
			continue
		}
		why := "retention is " + FormatTime(tp.Retention.Time)
		if tp.Retention.Size > 0 {
			why += " or " + scenario.FormatByteSize(tp.Retention.Size) + " per partition"
		}
		out = append(out, fmt.Sprintf("consumer %s fell behind topic %s partition %d by %s; %s: %s lost (deleted before they were read)",
			name, tp.Name, r.part, FormatTime(des.FromSeconds(ts.behindS[name])), why, plural.Count(int64(r.lost), "record")))
	}
	return out
}

// diagnoseTopics puts the records lost to retention at the head of the
// diagnosis, and a line per topic in its evidence: a consumer that lost
// data is the run's news, whatever held it back.
func (s *Sim) diagnoseTopics(sum *Summary) {
	for i := range sum.Topics {
		for _, line := range topicLoss(s.plan.Topics[i], &sum.Topics[i]) {
			sum.Diagnosis.lead(line)
		}
	}
}

// topicText is a topic's line of the summary table: per reader
// (consumer group), its pending records (pendingRecords), Kafka's
// records-lag-max, how far behind it is, and what retention took.
func topicText(ts *TopicSummary) string {
	type group struct {
		pending, lagMax, lost uint64
		behind                float64
	}
	by := map[string]*group{}
	var names []string
	for _, p := range ts.PartitionList {
		g := by[p.Reader]
		if g == nil {
			g = &group{}
			by[p.Reader] = g
			names = append(names, p.Reader)
		}
		g.pending += p.Lag
		g.lagMax = max(g.lagMax, p.Lag)
		g.behind = max(g.behind, p.LagS)
		g.lost += p.LostToRetention
	}
	var parts []string
	for _, name := range names {
		g := by[name]
		s := fmt.Sprintf("%s %s pending (pendingRecords), records-lag-max %d", name, plural.Count(int64(g.pending), "record"), g.lagMax)
		if g.behind > 0 {
			s += ", " + FormatTime(des.FromSeconds(g.behind)) + " behind"
		}
		if g.lost > 0 {
			s += fmt.Sprintf(", %s lost to retention", plural.Count(int64(g.lost), "record"))
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		parts = append(parts, "no reader")
	}
	return fmt.Sprintf("topic %s (%s): %s", ts.Name, plural.Count(ts.Partitions, "partition"), strings.Join(parts, "; "))
}

// lead puts line at the head of the diagnosis and in its evidence: a
// broker's news (records lost to retention, a queue paging) comes before
// whatever held the job back.
func (d *Diagnosis) lead(line string) {
	d.Evidence = append(d.Evidence, line)
	if d.Kind == DiagnosisNone {
		d.Message = line
	} else {
		d.Message = line + "; " + d.Message
	}
}
