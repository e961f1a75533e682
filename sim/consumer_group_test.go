package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// groupJob: a producer of 600 records/s, round-robin over 6 partitions
// (100/s each), read by consumer group billing of 3 members that process
// a record in 1ms (20% busy); member 1 fails at 31s. extra adds fields
// to the group.
func groupJob(extra string) string {
	return `duration: 120s
topics:
  - name: orders
    partitions: 6
sources:
  - name: shop
    arrival: {process: constant, rate: 600/s}
    writes: {topic: orders, partitioner: round-robin}
consumer_groups:
  - name: billing
    topic: orders
    members: 3
    service_time: {mean: 1ms}
` + extra + `failures:
  - {kind: consumer, at: 31s, group: billing, member: 1}
`
}

// recorder keeps the consumer rows of every sample and the events.
type recorder struct {
	rows   map[float64][]sim.Row // by sample time, in seconds
	events []sim.Event
}

func (r *recorder) Sample(s *sim.Sample) {
	for _, row := range s.Rows {
		if row.Kind == sim.KindConsumer {
			r.rows[s.Time.Seconds()] = append(r.rows[s.Time.Seconds()], row)
		}
	}
}
func (r *recorder) Event(e sim.Event) { r.events = append(r.events, e) }

func runGroup(t *testing.T, yaml string) (*sim.Summary, *recorder) {
	t.Helper()
	rec := &recorder{rows: map[float64][]sim.Row{}}
	res, err := sim.Run(context.Background(), parse(t, "g.yaml", []byte(yaml)), sim.Options{Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summary.ConsumerGroups) != 1 {
		t.Fatalf("%d consumer groups in the summary, want 1", len(res.Summary.ConsumerGroups))
	}
	return &res.Summary, rec
}

// TestConsumerGroupRebalance: member 1 of 3 (RangeAssignor: partitions 2
// and 3) fails at 31s. Its last heartbeat was at 30s (every 3s from 0),
// so the coordinator removes it at 30 + 45 = 75s (session.timeout.ms);
// the survivors heartbeat at 75s too, hear of the rebalance, are idle
// and join at once: the pause is 0 and the group is stable at 75s with
// billing-0 on 0, 1, 2 and billing-2 on 3, 4, 5 (RangeAssignor over two
// members). Partitions 2 and 3 make no progress from 31s to 75s: their
// lag grows at exactly their 2 x 100 = 200 records/s; then they resume
// from the offsets committed at 30s (auto-commit every 5s), so the 200
// records member 1 processed in (30s, 31s] are processed again, 100 on
// each partition: duplicates = 200.
func TestConsumerGroupRebalance(t *testing.T) {
	sum, rec := runGroup(t, groupJob(""))
	g := sum.ConsumerGroups[0]
	if len(g.Rebalances) != 1 {
		t.Fatalf("%d rebalances, want 1", len(g.Rebalances))
	}
	rb := g.Rebalances[0]
	got := fmt.Sprintf("%s failed %g, heartbeat %g, detected %g, completed %g, pause %g, moved %v, %v",
		rb.Member, rb.FailedS, rb.LastHeartbeatS, rb.DetectedS, rb.CompletedS, rb.PauseS, rb.Moved, rb.Assignment)
	if want := "billing-1 failed 31, heartbeat 30, detected 75, completed 75, pause 0, moved [2 3], map[billing-0:[0 1 2] billing-2:[3 4 5]]"; got != want {
		t.Errorf("rebalance:\n got %s\nwant %s", got, want)
	}
	if g.Duplicates != 200 || rb.Duplicates != 200 || g.Members[0].Duplicates != 100 || g.Members[2].Duplicates != 100 {
		t.Errorf("duplicates %d (rebalance %d, members %d and %d), want 200 (100 and 100)", g.Duplicates, rb.Duplicates, g.Members[0].Duplicates, g.Members[2].Duplicates)
	}
	// every record appended is processed once, the 200 twice
	var leo uint64
	for _, p := range g.Partitions {
		leo += p.LogEndOffset
	}
	if g.Lag != 0 || g.Processed != leo+200 {
		t.Errorf("processed %d with lag %d, want the %d appended + 200 again, lag 0", g.Processed, g.Lag, leo)
	}
	// the failed member's row: lag 200/s x (T - 31s) from 32s to 74s,
	// nothing processed, down; the survivors meanwhile at their 200/s
	// (the sample of 75s comes after the rebalance of 75s)
	for T := 32; T <= 74; T++ {
		rows := rec.rows[float64(T)]
		if len(rows) != 4 {
			t.Fatalf("%d consumer rows at %ds, want 3 members and the group", len(rows), T)
		}
		m1 := rows[1]
		if m1.SourceLag != int64(200*(T-31)) || m1.InRate != 0 || m1.Down != 1000 || m1.Group.Partitions != 2 {
			t.Errorf("member 1 at %ds: lag %d, in %g/s, down %g ms/s, %d partitions; want lag %d, 0/s, 1000, 2",
				T, m1.SourceLag, m1.InRate, m1.Down, m1.Group.Partitions, 200*(T-31))
		}
		if rows[0].InRate != 200 || rows[2].InRate != 200 {
			t.Errorf("survivors at %ds: %g/s and %g/s, want 200/s each", T, rows[0].InRate, rows[2].InRate)
		}
	}
	// at 75s member 1 holds nothing, and billing-0 has partition 2 back
	// at its commit of 30s: 100/s x 45s behind, beside its own 0 and 1,
	// less the record it polled at once (billing-2 likewise with 3)
	if r := rec.rows[75]; r[1].Group.Partitions != 0 || r[0].Group.Partitions != 3 || r[0].SourceLag != 4499 || r[2].SourceLag != 4499 {
		t.Errorf("at 75s: partitions %d and %d (want 0 and 3), survivors' lag %d and %d (want 4499)", r[1].Group.Partitions, r[0].Group.Partitions, r[0].SourceLag, r[2].SourceLag)
	}
	// then they catch up: more than their 300/s in the next second
	if r := rec.rows[76]; r[0].InRate <= 300 || r[2].InRate <= 300 {
		t.Errorf("at 76s: members at %g/s and %g/s, want > 300", r[0].InRate, r[2].InRate)
	}
	var types []string
	for _, e := range rec.events {
		if strings.HasPrefix(e.Type, "consumer") {
			types = append(types, fmt.Sprintf("%s %s", sim.FormatTime(e.Time), e.Type))
		}
	}
	if got, want := strings.Join(types, ", "), "31s consumer_failed, 75s consumer_group_rebalance_started, 75s consumer_group_rebalanced"; got != want {
		t.Errorf("events: %s, want %s", got, want)
	}
}

// TestConsumerGroupPause: with session_timeout 10s the coordinator
// removes member 1 at 30 + 10 = 40s, between the survivors' heartbeats
// (39s, 42s): they hear of the rebalance at 42s, and consume their own
// partitions until then; the rebalance takes 2s. Partitions 2 and 3 make
// no progress from 31s to 42s (lag 2000 at 41s), then resume from the
// commit of 30s: 200 duplicates again.
func TestConsumerGroupPause(t *testing.T) {
	sum, rec := runGroup(t, groupJob("    session_timeout: 10s\n"))
	rb := sum.ConsumerGroups[0].Rebalances[0]
	if rb.DetectedS != 40 || rb.CompletedS != 42 || rb.PauseS != 2 || rb.Duplicates != 200 {
		t.Errorf("detected %g, completed %g, pause %g, duplicates %d; want 40, 42, 2, 200", rb.DetectedS, rb.CompletedS, rb.PauseS, rb.Duplicates)
	}
	if r := rec.rows[41]; r[1].SourceLag != 2000 || r[0].InRate != 200 || r[2].InRate != 200 {
		t.Errorf("at 41s: member 1's lag %d (want 2000), survivors %g/s and %g/s (want 200)", r[1].SourceLag, r[0].InRate, r[2].InRate)
	}
}

// TestConsumerGroupBatchDelaysJoin: a survivor joins at its next poll,
// after the records of its last one. With 6ms a record the members
// serve 166.7/s of their 200/s and fall behind, so every poll returns
// max_poll_records (here 100, 600ms of work): the rebalance waits for
// the survivors' batches, and a survivor that joins first stops until
// the last one joins (the eager protocol's pause).
func TestConsumerGroupBatchDelaysJoin(t *testing.T) {
	yaml := strings.Replace(groupJob("    session_timeout: 10s\n    max_poll_records: 100\n"), "{mean: 1ms}", "{mean: 6ms}", 1)
	sum, _ := runGroup(t, yaml)
	rb := sum.ConsumerGroups[0].Rebalances[0]
	if rb.DetectedS != 40 || rb.PauseS <= 2 || rb.PauseS > 2.6 {
		t.Errorf("detected %g, pause %g; want 40 and a pause past the heartbeat at 42s by at most one batch (600ms)", rb.DetectedS, rb.PauseS)
	}
	t.Logf("pause %gs, duplicates %d", rb.PauseS, rb.Duplicates)
}

// TestConsumerGroupOverCapacity: one member processes a record in 4ms,
// 250 records/s, of the 400/s appended to 4 partitions: busy 100%, its
// lag grows at exactly 150 records/s, from 3750 at the window's middle
// (25s) to 7500 at 50s. The diagnosis says so; it said "no bottleneck".
// With 4 members (100/s each, busy 40%) nothing falls behind.
func TestConsumerGroupOverCapacity(t *testing.T) {
	job := func(members int) string {
		return fmt.Sprintf(`duration: 50s
topics:
  - name: orders
    partitions: 4
sources:
  - name: shop
    arrival: {process: constant, rate: 400/s}
    writes: {topic: orders, partitioner: round-robin}
consumer_groups:
  - name: billing
    topic: orders
    members: %d
    service_time: {distribution: constant, mean: 4ms}
`, members)
	}
	sum, _ := runGroup(t, job(1))
	g := sum.ConsumerGroups[0]
	if g.ProcessedRate < 249.9 || g.ProcessedRate > 250 || g.Members[0].BusyRatio < 0.999 || g.Lag < 7499 || g.Lag > 7501 {
		t.Errorf("processed %g records/s, busy %g, lag %d: want 250/s, 1 and 7500", g.ProcessedRate, g.Members[0].BusyRatio, g.Lag)
	}
	d := sum.Diagnosis
	want := "over capacity: consumer group billing processes 250 records/s and falls behind: its lag grows from 3750 records at 25s to 7500 records at the end (about 150 records/s); give it more members (topic orders has 4 partitions: up to 4 consumers share them) or make processing faster"
	if d.Kind != sim.DiagnosisOverloaded || d.Vertex != "billing" || d.Message != want ||
		len(d.Evidence) != 1 || d.Evidence[0] != "billing-0 is busy 100% processing partitions 0, 1, 2, 3" {
		t.Errorf("diagnosis %s at %s: %q %q\nwant overloaded at billing: %q", d.Kind, d.Vertex, d.Message, d.Evidence, want)
	}
	sum, _ = runGroup(t, job(4))
	if d := sum.Diagnosis; d.Kind != sim.DiagnosisNone {
		t.Errorf("4 members: diagnosis %s %q, want none", d.Kind, d.Message)
	}
	for _, m := range sum.ConsumerGroups[0].Members {
		if m.BusyRatio < 0.399 || m.BusyRatio > 0.401 {
			t.Errorf("4 members: %s busy %g, want 0.4", m.ID, m.BusyRatio)
		}
	}
}

// A member that fails before its first auto-commit (every 5s) leaves its
// partitions without a committed offset: after the rebalance they start
// at the log end (auto.offset.reset latest), and the event says so; it
// said they resume from their committed offsets.
func TestConsumerGroupRebalanceWithoutCommit(t *testing.T) {
	sum, rec := runGroup(t, strings.Replace(groupJob(""), "at: 31s", "at: 2500ms", 1))
	if g := sum.ConsumerGroups[0]; g.SkippedByReset == 0 {
		t.Errorf("skipped by offset reset %d, want the records of partitions 2 and 3 from 2.5s to the rebalance", g.SkippedByReset)
	}
	if d := sum.Diagnosis; d.Kind != sim.DiagnosisConsumerFailure || d.Vertex != "billing" {
		t.Errorf("diagnosis %s at %q, want consumer-failure at billing: %s", d.Kind, d.Vertex, d.Message)
	}
	want := "; partitions 2, 3 have no committed offset: auto.offset.reset latest starts them at the log end, skipping what the failed member had not processed"
	found := false
	for _, e := range rec.events {
		if e.Type == sim.EventGroupRebalanced {
			found = strings.HasSuffix(e.Message, want)
			if !found {
				t.Errorf("rebalanced: %q\nwant it to end %q", e.Message, want)
			}
		}
	}
	if !found {
		t.Error("no consumer_group_rebalanced event")
	}
}
