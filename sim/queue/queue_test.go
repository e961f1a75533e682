package queue

import (
	"math/rand/v2"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// TestRedeliveryAfterFailure: three competing consumers take 10
// messages each; consumer 1 acknowledges 4 and fails. Its 6
// unacknowledged messages stay invisible until the visibility timeout
// (30 s from their delivery), then go to the next consumer that asks,
// flagged redelivered: redelivered = in flight unacknowledged at the
// failure, and no message is delivered to two consumers at once.
func TestRedeliveryAfterFailure(t *testing.T) {
	q := New[struct{}](Config{VisibilityTimeout: 30 * des.Second})
	for range 100 {
		q.Publish(struct{}{})
	}
	got := map[int][]Delivery[struct{}]{}
	for c := range 3 {
		got[c], _ = q.Receive(0, c, 10)
		if len(got[c]) != 10 || got[c][0].ID != uint64(10*c) {
			t.Fatalf("consumer %d got %v", c, got[c])
		}
	}
	for _, d := range got[0] {
		q.Ack(0, d.ID)
	}
	for _, d := range got[1][:4] {
		q.Ack(1, d.ID)
	}
	for _, d := range got[2] {
		q.Ack(2, d.ID)
	}
	unacked := q.InFlight(1) // consumer 1 fails at 1 s
	if unacked != 6 {
		t.Fatalf("in flight at the failure %d, want 6", unacked)
	}
	// before the timeout: new messages only
	d, _ := q.Receive(2*des.Second, 0, 10)
	if d[0].ID != 30 || d[9].ID != 39 || d[0].Redelivered || q.Stats().Redelivered != 0 {
		t.Fatalf("before the timeout got %v", d)
	}
	for _, m := range d {
		q.Ack(0, m.ID)
	}
	// at 30 s (deliveries at 0 s + 30 s): ids 14..19 again, then 40..43
	d, _ = q.Receive(30*des.Second, 2, 10)
	for i, m := range d {
		want, again := uint64(14+i), true
		if i >= 6 {
			want, again = uint64(40+i-6), false
		}
		if m.ID != want || m.Redelivered != again {
			t.Errorf("delivery %d: %+v, want id %d redelivered %v", i, m, want, again)
		}
	}
	if s := q.Stats(); s.Redelivered != uint64(unacked) || s.Delivered != 30+10+10 || s.Acked != 34 {
		t.Errorf("stats %+v: want redelivered %d, delivered 50 (44 messages), acked 34", s, unacked)
	}
	if q.Ack(1, 15) {
		t.Error("the failed consumer's late ack of 15 succeeded; its delivery expired")
	}
	if q.InFlight(1) != 0 || q.InFlight(2) != 10 || q.Depth() != 100-44 {
		t.Errorf("in flight %d and %d, depth %d; want 0, 10, 56", q.InFlight(1), q.InFlight(2), q.Depth())
	}
}

// TestPagedThroughput: 5000 messages ready against a memory bound of
// 1000; one consumer drains them one at a time, acknowledging at once.
// While the backlog passes the bound each delivery pages a message in:
// 100 µs + 900 µs, 1000/s (Rates' paged rate); the first 4000 take 4 s.
// The last 1000, in memory, go at 10,000/s: 0.1 s.
func TestPagedThroughput(t *testing.T) {
	cfg := Config{MemoryBound: 1000, DeliverCost: 100 * des.Microsecond, PageCost: 900 * des.Microsecond, VisibilityTimeout: des.Minute}
	mem, paged := cfg.Rates()
	if mem != 10000 || paged != 1000 {
		t.Fatalf("rates %g and %g, want 10000 and 1000", mem, paged)
	}
	q := New[struct{}](cfg)
	for range 5000 {
		q.Publish(struct{}{})
	}
	if q.Paged() != 4000 {
		t.Fatalf("paged %d, want 4000", q.Paged())
	}
	var now, atBound des.Time
	for q.Depth() > 0 {
		d, cost := q.Receive(now, 0, 1)
		now += cost
		q.Ack(0, d[0].ID)
		if q.Depth() == cfg.MemoryBound {
			atBound = now
		}
	}
	if atBound != 4*des.Second || now != 4100*des.Millisecond {
		t.Errorf("backlog at the bound at %v, drained at %v; want 4s and 4.1s", atBound, now)
	}
	if r := 4000 / atBound.Seconds(); r != paged {
		t.Errorf("throughput past the bound %g/s, want the paged rate %g/s", r, paged)
	}
	if s := q.Stats(); s.Paged != 4000 || s.Acked != 5000 || s.MaxDepth != 5000 || s.Redelivered != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestSlowConsumersDegrade: a producer at 2000/s, three consumers of
// 2 ms a message (1500/s), a broker of 100 µs a delivery (10,000/s) and
// 900 µs more per page-in, a memory bound of 5000. The backlog grows at
// 2000 - 1500 = 500/s and passes the bound at 10 s; from then each
// delivery pages, the broker delivers 1000/s and the backlog grows at
// 1000/s: the lecture's "if consumers are slow, throughput might
// degrade". Stepped every 100 µs, a multiple of every cost: exact.
func TestSlowConsumersDegrade(t *testing.T) {
	cfg := Config{MemoryBound: 5000, DeliverCost: 100 * des.Microsecond, PageCost: 900 * des.Microsecond, VisibilityTimeout: des.Minute}
	q := New[struct{}](cfg)
	const tick = 100 * des.Microsecond
	var brokerFree des.Time
	consFree := make([]des.Time, 3)
	var published uint64
	delivered := map[int]int{} // by whole second
	var passed des.Time = -1
	for now := des.Time(0); now < 20*des.Second; now += tick {
		for ; float64(published) < now.Seconds()*2000; published++ {
			q.Publish(struct{}{})
		}
		if passed < 0 && q.Paged() > 0 {
			passed = now
		}
		if brokerFree > now {
			continue
		}
		for c := range consFree {
			if consFree[c] > now || q.Depth() == 0 {
				continue
			}
			d, cost := q.Receive(now, c, 1)
			q.Ack(c, d[0].ID)
			brokerFree, consFree[c] = now+cost, now+2*des.Millisecond
			delivered[int(now/des.Second)]++
			break
		}
	}
	if passed < 10*des.Second || passed > 10*des.Second+2*des.Millisecond {
		t.Errorf("working set passed the bound at %v, want 10s (5000 / 500/s)", passed)
	}
	for s := 1; s < 20; s++ {
		want := 1500
		if s == 10 {
			continue // the second it passes the bound
		} else if s > 10 {
			want = 1000
		}
		if delivered[s] < want-2 || delivered[s] > want+2 {
			t.Errorf("second %d: %d delivered, want %d", s, delivered[s], want)
		}
	}
	if d := q.Depth(); d < 5000+10*1000-20 || d > 5000+10*1000+20 {
		t.Errorf("backlog at 20s %d, want 15000 (5000 at 10s + 1000/s x 10s)", d)
	}
}

// TestAckOnCheckpoint: a Flink RabbitMQ source polls 100 messages/s and
// acknowledges what it polled when a checkpoint (every 10 s) completes;
// it fails at 25 s and restarts at 26 s. In flight at the failure: the
// 500 polled since the checkpoint of 20 s (20 s..24.99 s); the
// restarted reader is a new channel (consumer 1), which cannot
// acknowledge them. They become
// visible again 30 s after their delivery (50 s..54.99 s) and come back
// before newer messages: redelivered = 500 by 60 s, each once.
func TestAckOnCheckpoint(t *testing.T) {
	q := New[struct{}](Config{VisibilityTimeout: 30 * des.Second})
	for range 10000 {
		q.Publish(struct{}{})
	}
	const poll = 10 * des.Millisecond
	var unacked int
	seen := map[uint64]int{}
	for now := des.Time(0); now < 60*des.Second; now += poll {
		if now == 25*des.Second {
			unacked = q.InFlight(0)
		}
		if now >= 25*des.Second && now < 26*des.Second {
			continue // down
		}
		c := 0
		if now >= 26*des.Second {
			c = 1 // the restarted reader opens a new channel; the dead one's deliveries are not its own
		}
		if now > 0 && now%(10*des.Second) == 0 {
			q.AckBefore(c, now-poll) // the checkpoint of now completes: what was polled before its barrier
		}
		d, _ := q.Receive(now, c, 1)
		seen[d[0].ID]++
	}
	if unacked != 500 {
		t.Fatalf("in flight at the failure %d, want 500 (polled since the checkpoint of 20s)", unacked)
	}
	twice := 0
	for id, n := range seen {
		if n > 1 {
			twice++
			if id < 2000 || id >= 2500 || n != 2 {
				t.Errorf("id %d delivered %d times; only 2000..2499, twice", id, n)
			}
		}
	}
	if s := q.Stats(); s.Redelivered != 500 || twice != 500 {
		t.Errorf("redelivered %d, delivered twice %d; want 500 = in flight at the failure", s.Redelivered, twice)
	}
}

// naive is the queue's semantics without its bookkeeping: lists scanned
// whole. TestAgainstNaive checks Queue (its positions, compactions and
// the order of the deadlines) against it.
type naive struct {
	ready, redo []uint64
	flight      []inFlight[struct{}] // unacknowledged, in delivery order
	next        uint64
	vt          des.Time
	redelivered int
}

func (n *naive) receive(now des.Time, c, k int) []uint64 {
	kept := n.flight[:0]
	for _, m := range n.flight {
		if m.deadline <= now {
			n.redo = append(n.redo, m.id)
		} else {
			kept = append(kept, m)
		}
	}
	n.flight = kept
	var out []uint64
	for len(out) < k && len(n.ready)+len(n.redo) > 0 {
		var id uint64
		if len(n.redo) > 0 {
			id, n.redo = n.redo[0], n.redo[1:]
			n.redelivered++
		} else {
			id, n.ready = n.ready[0], n.ready[1:]
		}
		out = append(out, id)
		n.flight = append(n.flight, inFlight[struct{}]{id: id, c: c, at: now, deadline: now + n.vt})
	}
	return out
}

func (n *naive) ack(c int, id uint64) bool {
	for i, m := range n.flight {
		if m.id == id && m.c == c {
			n.flight = append(n.flight[:i], n.flight[i+1:]...)
			return true
		}
	}
	return false
}

// TestAgainstNaive: 50,000 seeded operations (publish, receive up to 5
// by one of 4 consumers, ack of a delivered id by its consumer or
// another, ack of a consumer's deliveries before a time) give the same
// deliveries, acknowledgements and counts as the naive lists.
func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const vt = 50 * des.Millisecond
	q, n := New[struct{}](Config{VisibilityTimeout: vt}), &naive{vt: vt}
	var now des.Time
	var delivered []uint64
	for step := range 50000 {
		now += des.Time(rng.IntN(3)) * des.Millisecond
		switch op := rng.IntN(10); {
		case op < 4:
			q.Publish(struct{}{})
			n.ready = append(n.ready, n.next)
			n.next++
		case op < 7:
			c, k := rng.IntN(4), 1+rng.IntN(5)
			got, _ := q.Receive(now, c, k)
			want := n.receive(now, c, k)
			if len(got) != len(want) {
				t.Fatalf("step %d: %d delivered, want %d", step, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i] {
					t.Fatalf("step %d: delivered %d, want %d", step, got[i].ID, want[i])
				}
				delivered = append(delivered, got[i].ID)
			}
		case op < 9 && len(delivered) > 0:
			id, c := delivered[rng.IntN(len(delivered))], rng.IntN(4)
			if a, b := q.Ack(c, id), n.ack(c, id); a != b {
				t.Fatalf("step %d: ack(%d, %d) %v, want %v", step, c, id, a, b)
			}
		default:
			c, before := rng.IntN(4), now-des.Time(rng.IntN(40))*des.Millisecond
			var acked []uint64
			for _, m := range n.flight {
				if m.c == c && m.at <= before {
					acked = append(acked, m.id)
				}
			}
			for _, id := range acked {
				n.ack(c, id)
			}
			want := len(acked)
			if got := q.AckBefore(c, before); got != want {
				t.Fatalf("step %d: AckBefore %d, want %d", step, got, want)
			}
		}
		for c := range 4 {
			held := 0
			for _, m := range n.flight {
				if m.c == c {
					held++
				}
			}
			if q.InFlight(c) != held || q.Depth() != len(n.ready)+len(n.redo) {
				t.Fatalf("step %d: consumer %d holds %d, want %d; depth %d, want %d", step, c, q.InFlight(c), held, q.Depth(), len(n.ready)+len(n.redo))
			}
		}
	}
	if s := q.Stats(); int(s.Redelivered) != n.redelivered || s.Redelivered < 1000 {
		t.Errorf("redelivered %d, naive %d (want many)", s.Redelivered, n.redelivered)
	}
}
