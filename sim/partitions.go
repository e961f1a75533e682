package sim

import (
	"encoding/csv"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
)

// partitions.csv holds, at every metrics sample, one row per partition
// of a topic and reader (the source vertex reading it, whose subtask owns
// the partition), as a Kafka lag exporter scrapes a consumer group's
// partitions: the figures of summary.json's partitions_detail as they
// stood then. They are a file of their own, not columns of
// timeseries.csv, whose rows are vertices and subtasks: a partition is
// neither, and a topic of 64 partitions would add 64 columns per figure
// to every row. One row shape per file keeps both readable with any CSV
// tool, and the rows grow with partitions, not the columns.

// PartitionColumns are the columns of partitions.csv, in order:
// time_s ends the metrics interval; the offsets, lag and bytes are those
// of PartitionSummary at that time, committed_offset empty before a
// checkpoint completed (summary.json's -1).
var PartitionColumns = []string{
	"time_s", "topic", "partition", "reader", "subtask",
	"log_start_offset", "log_end_offset", "position", "committed_offset",
	"lag_records", "lag_s", "lost_to_retention", "retained_bytes",
}

// PartitionSample is one partition of a topic as one reader sees it at a
// metrics sample (a row of partitions.csv).
type PartitionSample struct {
	Topic string
	PartitionSummary
}

// samplePartitions fills smp.Partitions with every partition of every
// topic per reader at now, topics in the scenario's order; none without
// topics.
func (s *Sim) samplePartitions(smp *Sample, now des.Time) {
	smp.Partitions = smp.Partitions[:0]
	for _, tp := range s.plan.Topics {
		for _, src := range s.topicReaders(tp) {
			s.partBuf = src.partitions(now, s.partBuf[:0])
			for _, ps := range s.partBuf {
				smp.Partitions = append(smp.Partitions, PartitionSample{Topic: tp.Name, PartitionSummary: ps})
			}
		}
	}
}

// WritePartitionRows writes the rows of partitions.csv for sample smp
// (PartitionColumns, without the header).
func WritePartitionRows(w *csv.Writer, smp *Sample) error {
	t := num(smp.Time.Seconds())
	rec := make([]string, 0, len(PartitionColumns))
	for i := range smp.Partitions {
		p := &smp.Partitions[i]
		committed := "" // no checkpoint completed yet
		if p.Committed >= 0 {
			committed = strconv.FormatInt(p.Committed, 10)
		}
		rec = append(rec[:0], t, p.Topic, strconv.Itoa(p.Partition), p.Reader, strconv.Itoa(p.Subtask),
			strconv.FormatUint(p.LogStartOffset, 10), strconv.FormatUint(p.LogEndOffset, 10),
			strconv.FormatUint(p.Position, 10), committed,
			strconv.FormatUint(p.Lag, 10), num(p.LagS), strconv.FormatUint(p.LostToRetention, 10),
			strconv.FormatInt(p.RetainedBytes, 10))
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	return nil
}
