package sim

import "strconv"

// Counter columns are the optional columns of timeseries.csv that count,
// so far, what one mechanism of the scenario did: a MillWheel-style
// sink's deduplication. A run has the columns of the mechanisms it uses
// (Sample.Counters names them, after TimeseriesColumns, EventTimeColumns,
// GraphColumns and ShedColumns), so a scenario
// without them writes the timeseries it wrote before; a row whose vertex
// has none of a column's mechanism leaves it empty. A mechanism adds its
// counterGroup to counterGroups, and no field to Row.

// NoCount is a row's value of a counter column its vertex does not have
// (an empty cell).
const NoCount = -1

// counterGroup is the counter columns of one mechanism.
type counterGroup struct {
	columns []string
	// uses says whether the run has the mechanism at vertex v.
	uses func(v *vertex) bool
	// count writes the counts of subtask t of v (t nil: of v as a whole)
	// into dst, one per column; v is a vertex that uses the mechanism.
	count func(v *vertex, t *subtask, dst []int64)
}

// counterGroups are every mechanism's counter columns, in the order of
// their columns.
var counterGroups = []counterGroup{
	{
		// MillWheel's deduplication at a sink (dedup_sink.go): the
		// sink's filter and storage are the vertex's, so its subtasks'
		// rows leave these empty
		columns: []string{"dedup_received", "dedup_duplicates_caught", "dedup_lookups", "dedup_false_positives", "dedup_storage_writes"},
		uses:    func(v *vertex) bool { return v.sink != nil && v.sink.dedup != nil },
		count: func(v *vertex, t *subtask, dst []int64) {
			if t != nil {
				for i := range dst {
					dst[i] = NoCount
				}
				return
			}
			d := v.sink.dedup
			for i, n := range [...]uint64{d.received, d.caught, d.lookups, d.falsePos, d.writes} {
				dst[i] = int64(n)
			}
		},
	},
	{
		// a queue's broker (queue_source.go), on the row of a vertex
		// that consumes it: shared by its subtasks, whose rows leave
		// these empty
		columns: []string{"queue_depth", "queue_redelivered", "queue_paged"},
		uses: func(v *vertex) bool {
			return len(v.subtasks) > 0 && v.subtasks[0].asSource() != nil && v.subtasks[0].asSource().qr != nil
		},
		count: func(v *vertex, t *subtask, dst []int64) {
			if t != nil {
				for i := range dst {
					dst[i] = NoCount
				}
				return
			}
			b := v.subtasks[0].asSource().qr.b
			st := b.q.Stats()
			dst[0], dst[1], dst[2] = int64(b.q.Depth()), int64(st.Redelivered), int64(st.Paged)
		},
	},
}

// activeCounters returns the counter groups the run uses, with their
// columns (Sample.Counters); none without.
func (s *Sim) activeCounters() (groups []*counterGroup, columns []string) {
	for i := range counterGroups {
		g := &counterGroups[i]
		for _, v := range s.vertices {
			if g.uses(v) {
				groups = append(groups, g)
				columns = append(columns, g.columns...)
				break
			}
		}
	}
	return groups, columns
}

// sampleCounters fills the counter columns of the rows of smp (per
// subtask, then the vertex, in the order of takeSample), in a slice of
// its own each sample: an observer may keep the rows.
func (s *Sim) sampleCounters(smp *Sample) {
	n := len(smp.Counters)
	vals := make([]int64, n*len(smp.Rows))
	for i := range vals {
		vals[i] = NoCount
	}
	i := 0
	for _, v := range s.vertices {
		for k := 0; k <= len(v.subtasks); k++ {
			var t *subtask
			if k < len(v.subtasks) {
				t = v.subtasks[k]
			}
			row := vals[i*n : (i+1)*n : (i+1)*n]
			col := 0
			for _, g := range s.counters {
				if g.uses(v) {
					g.count(v, t, row[col:col+len(g.columns)])
				}
				col += len(g.columns)
			}
			smp.Rows[i].Counters = row
			i++
		}
	}
}

// appendCounters appends the counter columns of r to rec.
func appendCounters(rec []string, r *Row) []string {
	for _, n := range r.Counters {
		if n == NoCount {
			rec = append(rec, "")
			continue
		}
		rec = append(rec, strconv.FormatInt(n, 10))
	}
	return rec
}
