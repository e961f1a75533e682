package sim

import (
	"sort"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
	"github.com/dspalab/dspalab/sim/plan"
)

// topicLog holds a stored topic (plan.Topic.Stored): one that sinks of the
// scenario's jobs write (Flink's KafkaSink), whose records depend on the
// run and cannot be regenerated. It holds each partition's records from
// the lowest offset a reader may still read or rewind to (its position,
// or the offsets of the latest completed checkpoint, or of its start),
// so its memory is bounded by the readers' lag and the checkpoint
// interval (and by retention: a reader skips what retention deleted);
// the offsets below are only counted.
//
// A sink appends what it makes visible: an at-least-once sink on
// arrival, a transactional one when the checkpoint that covers it
// completes (a read_committed reader sees a transaction's records at its
// commit, Kafka's last stable offset). A record keeps its id and the time
// it entered the first job, so the second job's latency is end to end and
// its sinks count the first job's duplicates as duplicates.
type topicLog struct {
	s       *Sim
	tp      *plan.Topic
	parts   []logPart
	readers []*source                  // reader subtasks, woken by appends
	byTask  map[int]*kafka.Partitioner // each writer subtask's partitioner, by gid
	appends uint64
}

// logPart is one partition of a stored topic.
type logPart struct {
	base uint64     // offset of recs[0]
	recs []logEntry // from base to the log end
	free des.Time   // when the leader ends the last append (bandwidth)
}

// logEntry is a stored record and when it can be read.
type logEntry struct {
	rec Record
	vis des.Time
}

// topicLog returns the stored log of tp, made on first use.
func (s *Sim) topicLog(tp *plan.Topic) *topicLog {
	if s.topicLogs == nil {
		s.topicLogs = map[*plan.Topic]*topicLog{}
	}
	l := s.topicLogs[tp]
	if l == nil {
		l = &topicLog{s: s, tp: tp, parts: make([]logPart, tp.Partitions), byTask: map[int]*kafka.Partitioner{}}
		s.topicLogs[tp] = l
	}
	return l
}

// leo returns the log end offset of partition p.
func (l *topicLog) leo(p int) uint64 { return l.parts[p].base + uint64(len(l.parts[p].recs)) }

// entry returns the record at offset off of partition p, nil when it is
// past the log end (or trimmed, which a reader never asks for).
func (l *topicLog) entry(p int, off uint64) *logEntry {
	lp := &l.parts[p]
	if off < lp.base || off >= lp.base+uint64(len(lp.recs)) {
		return nil
	}
	return &lp.recs[off-lp.base]
}

// append writes r, made visible by sink subtask t at now, to the
// partition its partitioner chooses, and wakes the readers that wait for
// it.
func (l *topicLog) append(now des.Time, t *subtask, r *Record) {
	part := l.byTask[t.gid]
	if part == nil {
		pcg := des.StreamPCG(l.s.sc.Seed, "sink/"+t.v.name+"/"+strconv.Itoa(t.index)+"/partitioner")
		w := t.v.pv.Writes
		p := kafka.NewPartitioner(PartitionerKind(w.Partitioner), l.tp.Partitions, w.BatchSize, pcg.Uint64(), pcg.Uint64())
		part = &p
		l.byTask[t.gid] = part
	}
	size := l.s.sizeOf(r)
	p := part.Partition(r.Key, size)
	lp := &l.parts[p]
	v := now
	if bw := l.tp.Bandwidth; bw > 0 {
		v = max(v, lp.free) + des.FromSeconds(float64(size)/bw)
		lp.free = v
	}
	lp.recs = append(lp.recs, logEntry{rec: *r, vis: v + l.tp.AppendLatency})
	l.appends++
	if l.appends%4096 == 0 {
		l.trim()
	}
	for _, src := range l.readers {
		if src.topic.owned[p] {
			src.wake(now)
		}
	}
}

// trim drops the records below every reader's lowest restorable offset.
func (l *topicLog) trim() {
	low := make([]uint64, len(l.parts))
	for p := range low {
		low[p] = l.leo(p)
	}
	var latest *checkpoint
	if l.s.ckpt != nil {
		latest = l.s.ckpt.latest
	}
	for _, src := range l.readers {
		sn := src.initial.topic
		if latest != nil {
			sn = latest.sources[src.seq].topic
		}
		for p := range low {
			if src.topic.owned[p] {
				low[p] = min(low[p], src.topic.position(p), sn.position(p))
			}
		}
	}
	for p := range l.parts {
		lp := &l.parts[p]
		if k := low[p] - lp.base; k > 0 && low[p] > lp.base {
			lp.recs = lp.recs[k:]
			lp.base = low[p]
		}
	}
}

// held returns the records the log holds in memory.
func (l *topicLog) held() int {
	n := 0
	for p := range l.parts {
		n += len(l.parts[p].recs)
	}
	return n
}

// nextStored moves a cursor of a stored topic to the next record of its
// partitions, the earliest readable first; des.Never when it has read
// every record appended so far (an append wakes it).
func (r *topicReader) nextStored() des.Time {
	best, bestVis := -1, des.Never
	for p, own := range r.owned {
		if !own {
			continue
		}
		if e := r.log.entry(p, r.count[p]); e != nil && (best < 0 || e.vis < bestVis) {
			best, bestVis = p, e.vis
		}
	}
	if best < 0 {
		r.part = -1
		return des.Never
	}
	e := r.log.entry(best, r.count[best])
	r.count[best]++
	r.vt, r.sent, r.key, r.part, r.size = e.vis, e.rec.EventTime, e.rec.Key, best, r.log.s.sizeOf(&e.rec)
	r.rec = e.rec
	return r.vt
}

// wake draws the next record of a source of a stored topic that had read
// everything, now that a sink appended more.
func (src *source) wake(now des.Time) {
	if !src.ended {
		return
	}
	src.draw()
	if !src.ended && !src.armed {
		src.armed = true
		src.t.at(max(src.vt, now), (*recordDue)(src))
	}
}

// storedStart is the log start offset of partition p of a stored topic
// at now: the first record not older than retention.time, nor beyond
// retention.size (records below the held ones are older).
func (src *source) storedStart(now des.Time, p int) uint64 {
	l := src.topic.log
	lp := &l.parts[p]
	start := lp.base
	if d := l.tp.Retention.Time; d > 0 {
		start += uint64(sort.Search(len(lp.recs), func(i int) bool { return now-lp.recs[i].vis <= d }))
	}
	leo := l.leo(p)
	if sz := l.tp.Retention.Size; sz > 0 && len(lp.recs) > 0 {
		if keep := uint64(sz / max(l.s.sizeOf(&lp.recs[0].rec), 1)); leo > keep {
			start = max(start, leo-keep)
		}
	}
	return min(start, leo)
}

// storedRecordBytes is a record a stored topic holds, as plan's estimate
// counts it (bytesPerStoredRecord).
const storedRecordBytes = 48

// topicRecords returns the records the stored topics hold.
func (s *Sim) topicRecords() int64 {
	var n int64
	for _, l := range s.topicLogs {
		n += int64(l.held())
	}
	return n
}
