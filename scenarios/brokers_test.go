package scenarios_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// The lesson of retention-loss: nothing is lost while the lag's age is
// under retention; past it about 500 records/s are, and the diagnosis
// names the consumer, the topic and the retention. With retention 10m the
// same lag loses nothing.
func TestRetentionLossLesson(t *testing.T) {
	s := run(t, load(t, "retention-loss"), nil).Summary
	ts := s.Topics[0]
	// lost from about 140s (the lag's age 0.5 t less 20s of buffered
	// records reaches 60s) at 500/s: 80,000 by 300s
	if ts.LostToRetention < 76000 || ts.LostToRetention > 84000 || s.Delivery.LostToRetention != ts.LostToRetention {
		t.Errorf("lost to retention: topic %d, delivery %d; want about 80000 both", ts.LostToRetention, s.Delivery.LostToRetention)
	}
	if ts.MaxBehindS < 60 || ts.MaxBehindS > 62 {
		t.Errorf("fell behind by %gs, want just past the 60s retention", ts.MaxBehindS)
	}
	if m := s.Diagnosis.Message; !strings.HasPrefix(m, "consumer etl fell behind topic clicks partition ") || !strings.Contains(m, "retention is 60s") {
		t.Errorf("diagnosis %q: want it to name the consumer, topic, partition and retention first", m)
	}
	// a second, slower reader: each reader's line says how far it fell
	// behind, not the topic's worst (slow's is just past 60s, etl's 60.768s)
	y := strings.Replace(string(source(t, "retention-loss")), "operators:\n", "  - {name: slow, parallelism: 1, arrival: {process: topic, topic: clicks}}\noperators:\n", 1) +
		"  - {name: out2, input: slow2}\n"
	y = strings.Replace(y, "sinks:\n", "  - {name: slow2, input: slow, service_time: {distribution: constant, mean: 4ms}}\nsinks:\n", 1)
	two := run(t, parse(t, "retention-loss", []byte(y)), nil).Summary
	lines := append([]string{two.Diagnosis.Message}, two.Diagnosis.Evidence...)
	var etl, slow string
	for _, l := range lines {
		for _, part := range strings.Split(l, "; consumer ") {
			switch {
			case strings.Contains(part, "etl fell behind"):
				etl = part
			case strings.Contains(part, "slow fell behind"):
				slow = part
			}
		}
	}
	if !strings.Contains(etl, "by 60.768s") || slow == "" || strings.Contains(slow, "by 60.768s") {
		t.Errorf("two readers: etl %q, slow %q; want each its own lag (etl's 60.768s)", etl, slow)
	}
	s = run(t, edit(t, "retention-loss", "retention: {time: 60s}", "retention: {time: 10m}"), nil).Summary
	if n := s.Topics[0].LostToRetention; n != 0 || s.Topics[0].PendingRecords < 135000 {
		t.Errorf("retention 10m: %d lost, %d pending; want 0 lost and the lag of about 140000 kept (300s x 1000/s − 150000 read − 10000 in the buffers)", n, s.Topics[0].PendingRecords)
	}
}

// The lesson of millwheel-vs-barriers: both sinks deliver exactly once
// after the failure; MillWheel's is fast and pays in storage; a small
// filter turns most records into lookups.
func TestMillWheelVsBarriersLesson(t *testing.T) {
	s := run(t, load(t, "millwheel-vs-barriers"), nil).Summary
	var mw, tx int = -1, -1
	for i, k := range s.Delivery.Sinks {
		switch k.Name {
		case "millwheel":
			mw = i
		case "barriers":
			tx = i
		}
	}
	m, b := s.Delivery.Sinks[mw], s.Delivery.Sinks[tx]
	if m.Duplicated != 0 || b.Duplicated != 0 || s.Delivery.Lost != 0 || m.Dedup.DuplicatesCaught < 4000 {
		t.Errorf("duplicated %d and %d, lost %d, caught %d; want 0, 0, 0 and about 5200", m.Duplicated, b.Duplicated, s.Delivery.Lost, m.Dedup.DuplicatesCaught)
	}
	if mp, bp := *vertex(t, &s, "millwheel").LatencyP50, *vertex(t, &s, "barriers").LatencyP50; mp > 200 || bp < 4500 || bp > 5500 {
		t.Errorf("p50 millwheel %.0fms, barriers %.0fms; want about 130ms and 5s", mp, bp)
	}
	small := run(t, edit(t, "millwheel-vs-barriers", "bloom_bits: 8388608", "bloom_bits: 65536"), nil).Summary
	for _, k := range small.Delivery.Sinks {
		if k.Dedup != nil && (k.Dedup.Lookups < k.Dedup.Received/2 || k.Duplicated != 0 || k.Dedup.LatencyAddedMs < 2) {
			t.Errorf("65536 bits: %d lookups of %d records, %d duplicated, +%.2fms; want most records looked up, 0 duplicated, over 2ms added", k.Dedup.Lookups, k.Dedup.Received, k.Duplicated, k.Dedup.LatencyAddedMs)
		}
	}
}

// The lesson of pubsub: each subscriber reads every record; the fast one
// keeps up, the slow one lags at about 200/s; with retention 30s only the
// slow one loses records.
func TestPubSubLesson(t *testing.T) {
	s := run(t, load(t, "pubsub"), nil).Summary
	lag, read := map[string]uint64{}, map[string]uint64{}
	for _, p := range s.Topics[0].PartitionList {
		lag[p.Reader] += p.Lag
		read[p.Reader] += p.Position
	}
	if lag["dashboard-in"] > 10 || lag["billing-in"] < 45000 || lag["billing-in"] > 55000 {
		t.Errorf("lags %v: want dashboard about 0 and billing about 51000", lag)
	}
	if read["dashboard-in"] < 295000 {
		t.Errorf("dashboard read %d records, want all of about 300000", read["dashboard-in"])
	}
	s = run(t, edit(t, "pubsub", "retention: {time: 10m}", "retention: {time: 30s}"), nil).Summary
	lost := map[string]uint64{}
	for _, p := range s.Topics[0].PartitionList {
		lost[p.Reader] += p.LostToRetention
	}
	if lost["dashboard-in"] != 0 || lost["billing-in"] == 0 {
		t.Errorf("lost to retention %v: want only billing-in to lose records", lost)
	}
}

// The lesson of queue-vs-log: the queue's consumers read 4/2.6ms =
// 1538/s, its backlog passes the working set of 5000 at 5000/(2000 −
// 1538.46) = 10.83s, and from then the broker pages every delivery in
// and delivers 1/(100us + 900us) = 1000/s; the log's reader reads its
// 1600/s all along, lag growing at 400/s (24,000 pending at 60s). With
// memory_bound 1000000 the queue never pages.
func TestQueueVsLogLesson(t *testing.T) {
	s := run(t, load(t, "queue-vs-log"), nil).Summary
	q := s.Queues[0]
	if q.PagingFromS < 10.8 || q.PagingFromS > 10.9 || q.RateBefore < 1536 || q.RateBefore > 1540 || q.RateAfter < 999 || q.RateAfter > 1001 {
		t.Errorf("queue %+v: want paging from 10.83s, 1538/s before, 1000/s after", q)
	}
	want := "the working set of queue orders passed memory at 10.835s: throughput fell from 1538.4/s to 1000/s"
	if !strings.HasPrefix(s.Diagnosis.Message, want) {
		t.Errorf("diagnosis %q, want it to open with %q", s.Diagnosis.Message, want)
	}
	if p := s.Topics[0].PendingRecords; p < 23900 || p > 24100 {
		t.Errorf("the log's reader has %d pending, want about 24000 (400/s x 60s)", p)
	}
	s = run(t, edit(t, "queue-vs-log", "memory_bound: 5000", "memory_bound: 1000000"), nil).Summary
	if q := s.Queues[0]; q.Paged != 0 || q.PagingFromS != -1 || strings.Contains(s.Diagnosis.Message, "working set") {
		t.Errorf("memory_bound 1000000: %+v, diagnosis %q; want nothing paged", q, s.Diagnosis.Message)
	}
}

// The lesson of consumer-group-rebalance: billing-1 fails at 33s, is
// removed at 75s (its last heartbeat 30s + session.timeout.ms 45s), the
// rebalance takes 0s (the survivors heartbeat at 75s and are idle), and
// the 599 records it processed after the commit of 30s (3s x 200/s, less
// the one in hand) are processed again.
func TestConsumerGroupRebalanceLesson(t *testing.T) {
	// the group's row is DOWN while billing-1 holds partitions 2 and 3
	// dead (33s..75s), OK again once they moved; the member's stays DOWN
	var groupDown, memberDown []float64
	s := run(t, load(t, "consumer-group-rebalance"), sampler(func(smp *sim.Sample) {
		for _, r := range smp.Rows {
			if r.Kind != sim.KindConsumer || r.Status != sim.StatusDown {
				continue
			}
			switch r.Subtask {
			case -1:
				groupDown = append(groupDown, smp.Time.Seconds())
			case 1:
				memberDown = append(memberDown, smp.Time.Seconds())
			}
		}
	})).Summary
	if len(groupDown) == 0 || groupDown[0] != 33 || groupDown[len(groupDown)-1] != 74 || len(memberDown) == 0 || memberDown[len(memberDown)-1] != 180 {
		t.Errorf("group DOWN at %v, billing-1 DOWN at %v; want the group 33s..74s, the member to the end", groupDown, memberDown)
	}
	g := s.ConsumerGroups[0]
	rb := g.Rebalances[0]
	if rb.FailedS != 33 || rb.LastHeartbeatS != 30 || rb.DetectedS != 75 || rb.PauseS != 0 || rb.Duplicates != 599 || g.Duplicates != 599 || rb.Generation != 2 {
		t.Errorf("failed %g, heartbeat %g, removed %g, pause %g, duplicates %d (group %d), generation %d; want 33, 30, 75, 0, 599, 2 (the first join is 1)",
			rb.FailedS, rb.LastHeartbeatS, rb.DetectedS, rb.PauseS, rb.Duplicates, g.Duplicates, rb.Generation)
	}
	if a := rb.Assignment; len(a["billing-0"]) != 3 || a["billing-0"][2] != 2 || len(a["billing-2"]) != 3 || a["billing-2"][0] != 3 || g.Lag != 0 {
		t.Errorf("assignment %v, lag %d; want billing-0 [0 1 2], billing-2 [3 4 5], caught up", a, g.Lag)
	}
	if m := s.Diagnosis.Message; !strings.HasPrefix(m, "consumer billing-1 of group billing failed at 33s: its partitions 2, 3 made no progress for 42s") || len(s.Diagnosis.Evidence) != 0 {
		t.Errorf("diagnosis %q, evidence %q (the lead line once)", m, s.Diagnosis.Evidence)
	}
	// billing-2 fails too, at 50s: the rebalance that starts at 75s waits
	// for it (still a member) until the coordinator removes it at 93s
	// (its last heartbeat at 48s + 45s): one rebalance, generation 2,
	// moving its partitions 4 and 5 with billing-1's 2 and 3
	y := string(source(t, "consumer-group-rebalance")) + "  - {kind: consumer, at: 50s, group: billing, member: 2}\n"
	two := run(t, parse(t, "consumer-group-rebalance", []byte(y)), nil).Summary
	if rbs := two.ConsumerGroups[0].Rebalances; len(rbs) != 1 || rbs[0].Generation != 2 || rbs[0].CompletedS != 93 || !slices.Equal(rbs[0].Moved, []int{2, 3, 4, 5}) ||
		len(rbs[0].AlsoRemoved) != 1 || rbs[0].AlsoRemoved[0].Member != "billing-2" || !slices.Equal(rbs[0].Assignment["billing-0"], []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("two failures: rebalances %+v; want one, generation 2, completed at 93s, moving 2-5 to billing-0", rbs)
	}
	if m := two.Diagnosis.Message; !strings.HasPrefix(m, "consumers billing-1 (failed at 33s, partitions 2, 3) and billing-2 (failed at 50s, partitions 4, 5, removed at 93s") {
		t.Errorf("two failures: diagnosis %q", m)
	}
	// all three fail: the group lags by all that was appended since its
	// reads, and the diagnosis says nobody reads the topic; a member
	// failed at 150s is not removed by the end (180s): it still holds
	// its partitions, which the diagnosis says
	y = string(source(t, "consumer-group-rebalance")) + "  - {kind: consumer, at: 40s, group: billing, member: 0}\n  - {kind: consumer, at: 50s, group: billing, member: 2}\n"
	all := run(t, parse(t, "consumer-group-rebalance", []byte(y)), nil).Summary
	if g := all.ConsumerGroups[0]; g.Lag < 80000 || !strings.HasPrefix(all.Diagnosis.Message, "every consumer of group billing has failed: nobody reads topic orders any more") {
		t.Errorf("all fail: lag %d, diagnosis %q", g.Lag, all.Diagnosis.Message)
	}
	late := run(t, edit(t, "consumer-group-rebalance", "at: 33s", "at: 150s"), nil).Summary
	if m := late.Diagnosis.Message; !strings.HasPrefix(m, "consumer billing-1 of group billing has failed and still holds partitions 2, 3 at the end") || late.ConsumerGroups[0].Lag == 0 {
		t.Errorf("failed at 150s: diagnosis %q, lag %d", m, late.ConsumerGroups[0].Lag)
	}
	s = run(t, edit(t, "consumer-group-rebalance", "session_timeout: 45s", "session_timeout: 10s"), nil).Summary
	if rb := s.ConsumerGroups[0].Rebalances[0]; rb.DetectedS != 40 || rb.PauseS != 2 {
		t.Errorf("session_timeout 10s: removed at %g, pause %g; want 40 and 2 (heard at the heartbeat of 42s)", rb.DetectedS, rb.PauseS)
	}
}

// The lesson of exactly-once-topic: through a topic with transactional
// sinks a failure duplicates and loses nothing, at the price of half a
// checkpoint interval per transactional hop and a whole interval for the
// second; an at-least-once Kafka sink's duplicates reach the next job.
func TestExactlyOnceTopicLesson(t *testing.T) {
	check := func(s sim.Summary, dups uint64, kafkaP50, outP50 float64) {
		t.Helper()
		if s.Recovery.Restarts != 1 || s.Delivery.Lost != 0 || s.Delivery.Replayed != 19367 && dups == 0 {
			t.Errorf("%d restarts, %d lost, %d replayed; want 1, 0 and 19367", s.Recovery.Restarts, s.Delivery.Lost, s.Delivery.Replayed)
		}
		for _, k := range s.Delivery.Sinks {
			if k.Duplicated != dups {
				t.Errorf("sink %s: %d duplicated, want %d", k.Name, k.Duplicated, dups)
			}
		}
		if p := *vertex(t, &s, "to-kafka").LatencyP50; p < kafkaP50-100 || p > kafkaP50+100 {
			t.Errorf("to-kafka p50 %.0fms, want %.0f", p, kafkaP50)
		}
		if p := *vertex(t, &s, "out").LatencyP50; p < outP50-100 || p > outP50+100 {
			t.Errorf("out p50 %.0fms, want %.0f", p, outP50)
		}
	}
	check(run(t, load(t, "exactly-once-topic"), nil).Summary, 0, 5508, 15900)
	check(run(t, edit(t, "exactly-once-topic", "delivery: transactional\n    writes", "delivery: at-least-once\n    writes"), nil).Summary, 6168, 52, 5850)
}
