package microbatch

import (
	"strconv"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
	"github.com/dspalab/dspalab/sim/plan"
)

// storedTopic is a topic that sinks of the job write (Spark's Kafka sink,
// KafkaWriter: df.write.format("kafka") or foreachRDD with a producer)
// and sources of the job read as direct streams. Its records depend on
// the run, so it holds them: per Kafka partition, from the lowest offset
// a reader has not read yet (memory bounded by the readers' lag).
//
// A record becomes visible when the output of its batch completes (the
// job's end, then append_latency, behind the leader's bandwidth): the
// tasks' producers flush before the job ends. Spark's Kafka sink is
// at-least-once: a batch run again after a driver failure writes its
// records again (records_duplicated counts them; the rerun's copy is
// the one appended). A record keeps its origin and event time, so a
// reader's latency is end to end.
type storedTopic struct {
	tp      *plan.Topic
	parts   []storedPart
	readers []*storedArrivals
	writers map[int]*kafka.Partitioner // by sink vertex index × 1<<20 + partition
	appends uint64
}

// storedPart is one partition of a stored topic.
type storedPart struct {
	base int64       // offset of recs[0]
	recs []storedRec // from base to the log end
	free des.Time    // when the leader ends the last append (bandwidth)
}

// storedRec is a record in a stored topic: when it can be read, its key,
// origin, event time and size.
type storedRec struct {
	vis, origin, et des.Time
	key             uint32
	size            int64
}

// outRec is a record a sink writing a topic received in a batch, appended
// when the batch's job ends.
type outRec struct {
	sink, part int // sink vertex index, its partition
	key        uint32
	origin, et des.Time
	size       int64
}

// storedArrivals reads partition p of a stored topic (a direct stream's
// partition): Next returns the visible time of the next record, or
// des.Never while the writers have not appended it yet (waiting; the
// append that brings it sets the partition's next time, wake).
type storedArrivals struct {
	t       *storedTopic
	p       int
	cur     int64 // offset of the record Next returned last, -1 before
	waiting bool
	wake    func(des.Time) // sets the partition's next time of this copy
}

func (a *storedArrivals) Next() des.Time {
	lp := &a.t.parts[a.p]
	if a.cur+1 < lp.base+int64(len(lp.recs)) {
		a.cur++
		return lp.recs[a.cur-lp.base].vis
	}
	a.waiting = true
	return des.Never
}

func (a *storedArrivals) rec() *storedRec {
	lp := &a.t.parts[a.p]
	return &lp.recs[a.cur-lp.base]
}

func (a *storedArrivals) current() (uint32, des.Time, des.Time) {
	r := a.rec()
	return r.key, r.origin, r.et
}

// storedTopicOf returns the stored topic tp, made on first use.
func (s *Sim) storedTopicOf(tp *plan.Topic) *storedTopic {
	if s.stored == nil {
		s.stored = map[*plan.Topic]*storedTopic{}
	}
	t := s.stored[tp]
	if t == nil {
		t = &storedTopic{tp: tp, parts: make([]storedPart, tp.Partitions), writers: map[int]*kafka.Partitioner{}}
		s.stored[tp] = t
	}
	return t
}

// readStored makes pt a reader of partition pt.index of the stored topic
// tp: two cursors, one counting what is appended, one reading.
func (s *Sim) readStored(pt *partition, tp *plan.Topic) {
	t := s.storedTopicOf(tp)
	log := &storedArrivals{t: t, p: pt.index, cur: -1, wake: func(at des.Time) { pt.nextAppend = at }}
	rd := &storedArrivals{t: t, p: pt.index, cur: -1, wake: func(at des.Time) { pt.nextRead = at }}
	t.readers = append(t.readers, log, rd)
	pt.log, pt.rd, pt.recs = log, rd, rd
}

// write appends the records the batch's sinks wrote to their topics, at
// now, the end of its job.
func (s *Sim) write(b *batch, now des.Time) {
	for i := range b.out {
		r := &b.out[i]
		t := s.writes[r.sink]
		k := r.sink<<20 | r.part
		part := t.writers[k]
		if part == nil {
			v := s.plan.Vertices[r.sink]
			pcg := des.StreamPCG(s.sc.Seed, "sink/"+v.Name+"/"+strconv.Itoa(r.part)+"/partitioner")
			p := kafka.NewPartitioner(sim.PartitionerKind(v.Writes.Partitioner), t.tp.Partitions, v.Writes.BatchSize, pcg.Uint64(), pcg.Uint64())
			part = &p
			t.writers[k] = part
		}
		p := part.Partition(r.key, r.size)
		lp := &t.parts[p]
		vis := now
		if bw := t.tp.Bandwidth; bw > 0 {
			vis = max(vis, lp.free) + des.FromSeconds(float64(r.size)/bw)
			lp.free = vis
		}
		lp.recs = append(lp.recs, storedRec{vis: vis + t.tp.AppendLatency, origin: r.origin, et: r.et, key: r.key, size: r.size})
		for _, a := range t.readers {
			if a.p == p && a.waiting {
				a.waiting = false
				a.wake(a.Next())
			}
		}
		if t.appends++; t.appends%4096 == 0 {
			t.trim()
		}
	}
	b.out = nil
}

// trim drops the records every reader has passed.
func (t *storedTopic) trim() {
	for p := range t.parts {
		lp := &t.parts[p]
		low := lp.base + int64(len(lp.recs))
		for _, a := range t.readers {
			if a.p == p {
				low = min(low, a.cur)
			}
		}
		if n := low - lp.base; n > 0 {
			lp.recs = append(lp.recs[:0], lp.recs[n:]...)
			lp.base = low
		}
	}
}
