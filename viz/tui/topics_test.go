package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// shedYAML: 1000 records/s into a count that serves 500/s; the source
// sheds at random while its lag passes 2000 records.
const shedYAML = `name: shed
description: A source that sheds what its count cannot serve.
duration: 60s
workers: {count: 1, slots: 2}
sources:
  - name: clicks
    arrival: {process: constant, rate: 1000/s}
    keys: {count: 100}
    shedding: {lag_over: 2000, mode: random, probability: 1}
operators:
  - {name: count, input: clicks, partitioning: hash, service_time: {distribution: constant, mean: 2ms}}
sinks:
  - {name: out, input: count}
`

// TestGoldenTopics compares frames with the topics pane with
// testdata/TestGoldenTopics/*.golden: retention-loss before its lag's age
// reaches retention (60s: bars half way) and after (200s: the bars past
// the mark, records lost), pubsub's two consumer groups of one topic, the
// pane hidden by t, the help that names it, a shedding source's shed
// rate (500/s) without topics, and queue-vs-log's queue (its depth
// growing, paged in past memory_bound) beside its log.
func TestGoldenTopics(t *testing.T) {
	sc, err := scenario.Parse("shed.yaml", []byte(shedYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sc   *scenario.Scenario
		w, h int
		keys []string
		to   des.Time
	}{
		{"retention_60s_100x30", builtin(t, "retention-loss"), 100, 30, nil, 60 * des.Second},
		{"retention_200s_100x30", builtin(t, "retention-loss"), 100, 30, nil, 200 * des.Second},
		{"pubsub_120s_100x34", builtin(t, "pubsub"), 100, 34, nil, 120 * des.Second},
		{"hidden_200s_100x30", builtin(t, "retention-loss"), 100, 30, []string{"t"}, 200 * des.Second},
		{"help_60s_100x40", builtin(t, "retention-loss"), 100, 40, []string{"?"}, 60 * des.Second},
		{"shed_30s_100x30", sc, 100, 30, nil, 30 * des.Second},
		{"queue_30s_100x30", builtin(t, "queue-vs-log"), 100, 30, nil, 30 * des.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := frame(t, tc.sc, tc.w, tc.h, tc.keys, tc.to)
			golden.RequireEqual(t, got)
		})
	}
}

// TestLagBar: against retention.time (60s in retention-loss) the bar is
// the age's share of 24 cells (15s: 6), full from 60s on; a topic
// without retention by time (none in the plan here) scales the records
// lag to the largest of the pane (half: 12 cells); any lag shows a cell.
func TestLagBar(t *testing.T) {
	m := newModel(testJob(builtin(t, "retention-loss")), nil)
	m.st = styles{}
	p := func(topic string, lag uint64, age float64) sim.PartitionSample {
		return sim.PartitionSample{Topic: topic, PartitionSummary: sim.PartitionSummary{Lag: lag, LagS: age}}
	}
	bar := func(full int) string { return strings.Repeat("█", full) + strings.Repeat("░", lagBarW-full) }
	for _, tc := range []struct {
		p      sim.PartitionSample
		maxLag uint64
		want   string
	}{
		{p("clicks", 100, 15), 100, bar(6) + "┃"},
		{p("clicks", 100, 90), 100, bar(24) + "┃"},
		{p("clicks", 1, 0.001), 100, bar(1) + "┃"},
		{p("clicks", 0, 0), 100, bar(0) + "┃"},
		{p("other", 50, 15), 100, bar(12) + " "},
	} {
		if got := m.lagBar(tc.p, tc.maxLag); got != tc.want {
			t.Errorf("lagBar(%+v, %d) = %q, want %q", tc.p, tc.maxLag, got, tc.want)
		}
	}
}
