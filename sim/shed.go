package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Load shedding (scenario.Shedding; Tatbul et al., "Load Shedding in a
// Data Stream Manager", VLDB 2003: Aurora's drop boxes), at a replayable
// source or in front of an operator. While a trigger holds, each record
// is shed at random (decided by a hash of its id, so a replay sheds the
// same records) or by its key (keys keep_keys and above).
//
// At a source the triggers are its lag (lag_over records appended to its
// log and not read) and the record's time in the log (latency_over: now
// − when it was appended); a shed record is read and skipped: its offset
// is passed, it is never emitted, and it is counted in delivery.shed.
//
// At an operator they are its input queue (queue_over: the records
// waiting in its input gate behind the one it takes) and the record's
// latency (latency_over: now − when the source emitted it into the job,
// the latency the sinks report), looked at as the operator takes the
// record from its input, as a drop box in front of it would: a shed
// record leaves the subtask at once, costs no service time, is never
// processed, and is counted in the operator's shed_records and in
// delivery.shed_by_operators. Shed records are counted apart from lost
// ones.

// shedSalt seeds the random shedding decision.
const shedSalt = 0x5eed5eed5eed5eed

// shedding is the load shedding of a vertex (a source or an operator)
// and its counts, per subtask: shed so far and in the current metrics
// interval.
type shedding struct {
	cfg       *scenario.Shedding
	total, iv []uint64
}

// newShedding returns the shedding of pv, nil when it sheds nothing.
func newShedding(pv *plan.Vertex) *shedding {
	cfg := pv.LoadShedding()
	if cfg == nil {
		return nil
	}
	return &shedding{cfg: cfg, total: make([]uint64, pv.Parallelism), iv: make([]uint64, pv.Parallelism)}
}

// picks reports whether a record of key under a trigger is shed; h is the
// hash of its identity that decides a random shedding.
func (sh *shedding) picks(key uint32, h uint64) bool {
	if sh.cfg.Mode == scenario.SheddingSemantic {
		return int(key) >= sh.cfg.KeepKeys
	}
	return unitFloat(mix64(h)) < sh.cfg.Probability
}

// count counts a record subtask i shed.
func (sh *shedding) count(i int) {
	sh.total[i]++
	sh.iv[i]++
}

// sum returns the records the vertex shed so far.
func (sh *shedding) sum() uint64 {
	var n uint64
	for _, c := range sh.total {
		n += c
	}
	return n
}

// sheds decides whether r, just read at now, is shed, and if so passes
// it: the caller drops it from the output.
func (src *source) sheds(now des.Time, r *Record) bool {
	sh := src.t.v.shed
	cfg := sh.cfg
	if !(cfg.QueueOver > 0 && src.lag(now) > uint64(cfg.QueueOver)) && !(cfg.LatencyOver > 0 && now-src.taken > cfg.LatencyOver) {
		return false
	}
	if !sh.picks(r.Key, r.ID^shedSalt) {
		return false
	}
	if src.next > src.maxOffset {
		src.maxOffset = src.next
		sh.count(src.t.index)
	}
	if src.mode == srcLog {
		src.draw()
	}
	return true
}

// shedsInput decides whether the record t just took from its input
// (t.cur) is shed, and if so lets it leave the subtask: the caller takes
// the next one.
func (t *subtask) shedsInput(now des.Time) bool {
	sh, r := t.v.shed, &t.cur
	cfg := sh.cfg
	if !(cfg.QueueOver > 0 && t.gate.queuedRecs > cfg.QueueOver) && !(cfg.LatencyOver > 0 && now-r.Ingest > cfg.LatencyOver) {
		return false
	}
	if !sh.picks(r.Key, r.ID^uint64(r.Copy)<<40^t.v.salt^shedSalt) {
		return false
	}
	t.depart(now, t.s.warmup, t.curArrived)
	sh.count(t.index)
	return true
}

// ShedColumns follow the other columns of timeseries.csv in a job with
// load shedding: the records a source or an operator shed so far
// (shed_records) and per simulated second in the interval
// (shed_rate_rps); empty for the vertices that do not shed.
var ShedColumns = []string{"shed_records", "shed_rate_rps"}

// RowShed is the ShedColumns of a row.
type RowShed struct {
	On bool // the row is a shedding vertex's
	// Records shed so far; Rate per simulated second over the interval
	Records uint64
	Rate    float64
}

// appendCSV appends the ShedColumns of r to rec.
func (r *RowShed) appendCSV(rec []string) []string {
	if !r.On {
		return append(rec, "", "")
	}
	return append(rec, strconv.FormatUint(r.Records, 10), num(r.Rate))
}

// sample fills the shed counts of subtask i's row r over an interval of
// sec seconds, and starts the next interval.
func (sh *shedding) sample(i int, r *RowShed, sec float64) {
	*r = RowShed{On: true, Records: sh.total[i], Rate: float64(sh.iv[i]) / sec}
	sh.iv[i] = 0
}

// shedCounts returns the records v shed over the run and those that came
// to it: read by a source (emitted once or shed), or taken from an
// operator's input (processed or shed).
func (v *vertex) shedCounts() (shed, came uint64) {
	shed = v.shed.sum()
	came = shed
	for _, t := range v.subtasks {
		if src := t.asSource(); src != nil {
			came += src.emits - src.replayed
		} else {
			came += t.totIn
		}
	}
	return shed, came
}

// shedFraction is shed over came, 0 when nothing came.
func shedFraction(shed, came uint64) float64 {
	if came == 0 {
		return 0
	}
	return round6(float64(shed) / float64(came))
}

// diagnoseShedding puts the records load shedding dropped at the head of
// the diagnosis, a line per vertex that shed in its evidence: what the
// job did not process is news before any bottleneck (the shedding is
// why there may be none).
func (s *Sim) diagnoseShedding(sum *Summary) {
	for i, vs := range sum.Vertices { // in the order of s.vertices
		v := s.vertices[i]
		if v.shed == nil || vs.Shed == 0 {
			continue
		}
		line := fmt.Sprintf("%s shed %s by load shedding, %s of what came to it (it sheds %s): a count downstream misses as many",
			vs.Name, plural.Count(int64(vs.Shed), "record"), pctPrec(vs.ShedFraction), sheddingTrigger(v.shed.cfg, v.kind == KindSource))
		d := &sum.Diagnosis
		d.Evidence = append(d.Evidence, line)
		d.Message = line + "; " + d.Message
	}
}

// sheddingTrigger says in words when cfg sheds.
func sheddingTrigger(cfg *scenario.Shedding, source bool) string {
	var when []string
	if cfg.QueueOver > 0 {
		if source {
			when = append(when, fmt.Sprintf("while its lag is over %s", plural.Count(int64(cfg.QueueOver), "record")))
		} else {
			when = append(when, fmt.Sprintf("while more than %s wait in its input queue", plural.Count(int64(cfg.QueueOver), "record")))
		}
	}
	if cfg.LatencyOver > 0 {
		if source {
			when = append(when, "the records that waited in its log over "+FormatTime(cfg.LatencyOver))
		} else {
			when = append(when, "the records whose latency is over "+FormatTime(cfg.LatencyOver))
		}
	}
	return strings.Join(when, ", or ")
}
