package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// setState to the state a subtask is in accounts nothing and leaves the
// stretch to the next change; accounted up to the same instant, the
// interval and window sums are those of accounting at every call, around
// the warmup and across interval resets.
func TestSetStateSameStateDefers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const warmup = 5000
	lazy := &subtask{}
	lazy.warmup = warmup
	eager := timeAccounting{warmup: warmup}
	var now des.Time
	skipped := 0
	for i := 0; i < 100_000; i++ {
		now += des.Time(r.IntN(3)) // some calls at the same instant
		st := r.IntN(4)
		if r.IntN(2) == 0 {
			st = lazy.state // a "change" to the state it is in
		}
		if st == lazy.state {
			skipped++
		}
		lazy.setState(now, st)
		eager.account(now)
		eager.state = st
		if r.IntN(500) == 0 { // a reader: a sample accounts up to now first
			lazy.account(now)
			eager.account(now)
			if lazy.iv != eager.iv || lazy.win != eager.win || lazy.state != eager.state {
				t.Fatalf("at %d: interval %v window %v, want %v %v", now, lazy.iv, lazy.win, eager.iv, eager.win)
			}
			lazy.iv, eager.iv = [4]des.Time{}, [4]des.Time{}
		}
	}
	if skipped == 0 || eager.win[stateIdle] == 0 || eager.win[stateBP] == 0 {
		t.Fatal("the test checks nothing")
	}
}

// depart at the instant of the last integration skips touchN, which
// would add inSys x 0: the Little's law integrals stay bit for bit those
// of integrating at every departure.
func TestDepartSameInstantSkipsNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const warmup = 300
	var got, want ioMetrics
	var now des.Time
	for i := 0; i < 100_000; i++ {
		if r.IntN(3) == 0 {
			now += des.Time(r.IntN(50))
		}
		if got.inSys == 0 || r.IntN(2) == 0 {
			n := 1 + r.IntN(3)
			got.arrive(now, warmup, n)
			want.arrive(now, warmup, n)
			continue
		}
		arrived := now - des.Time(r.IntN(100))
		got.depart(now, warmup, arrived)
		want.touchN(now, warmup) // depart as it was: always integrate
		want.inSys--
		if now > warmup {
			want.sojourn += float64(now - arrived)
			want.departed++
		}
		if got != want {
			t.Fatalf("at %d: %+v, want %+v", now, got, want)
		}
	}
	if want.area == 0 || want.departed == 0 {
		t.Fatal("the test checks nothing")
	}
}
