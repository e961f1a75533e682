package microbatch

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// Random executor failures (mtbf 10s per worker over 120s) strike at the
// times drawn from the streams named as sim's, failures/0/worker/w: every
// draw before the end fails its executor, except one that comes while
// that executor is still being replaced (executor_restart). The count,
// the failure events and their times equal the draws, exactly.
func TestRandomExecutorFailures(t *testing.T) {
	y := strings.Replace(strings.Replace(recoveryJob, "DELIVERY", "at-least-once", 1), "duration: 60s", "duration: 120s", 1) +
		"failures: [{kind: worker, mtbf: 10s}]\n"
	sc := parse(t, y)
	r := run(t, sc)
	want := map[des.Time]int{} // failure time -> worker
	for w := range sc.Workers.Count {
		rng := des.Stream(sc.Seed, "failures/0/worker/"+strconv.Itoa(w))
		lostUntil := des.Time(-1)
		for at := des.Time(0); ; {
			at += des.Time(rng.ExpFloat64() * float64(10*des.Second))
			if at >= sc.Duration {
				break
			}
			if at >= lostUntil {
				want[at] = w
				lostUntil = at + sc.Spark.ExecutorRestart
			}
		}
	}
	got := map[des.Time]int{}
	for _, e := range r.Events {
		if e.Type == sim.EventFailure {
			got[e.Time] = e.Worker
		}
	}
	if len(want) < 10 {
		t.Fatalf("only %d draws: the test wants several failures", len(want))
	}
	if r.Summary.Recovery == nil || r.Summary.Recovery.Failures != len(want) || len(got) != len(want) {
		t.Fatalf("%d failures (%d events), want the %d drawn", r.Summary.Recovery.Failures, len(got), len(want))
	}
	for at, w := range want {
		if g, ok := got[at]; !ok || g != w {
			t.Errorf("no failure of worker %d at %v", w, at)
		}
	}
	if r.Summary.Totals.Lost != 0 || r.Summary.Recovery.JobState != "running" {
		t.Errorf("totals %+v, recovery %+v", r.Summary.Totals, r.Summary.Recovery)
	}
}

// A random driver failure (mtbf 20s, over 180s) with checkpointing: the job comes
// back each time; the same seed gives the same run.
func TestRandomDriverFailures(t *testing.T) {
	y := strings.Replace(strings.Replace(recoveryJob, "DELIVERY", "idempotent", 1), "duration: 60s", "duration: 180s", 1) + "failures: [{kind: jobmanager, mtbf: 20s}]\n"
	a, b := run(t, parse(t, y)), run(t, parse(t, y))
	sc := parse(t, y)
	rng := des.Stream(sc.Seed, "failures/0/worker/-1")
	want, downUntil, down := 0, des.Time(-1), des.Time(0)
	for at := des.Time(0); ; {
		at += des.Time(rng.ExpFloat64() * float64(20*des.Second))
		if at >= sc.Duration {
			break
		}
		if at >= downUntil {
			want++
			downUntil = at + sc.Spark.DriverRestart
			down += min(downUntil, sc.Duration) - at // counted up to the end
		}
	}
	state := "running"
	if downUntil > sc.Duration {
		state = "restarting" // the last restart is due after the end
	}
	r := a.Summary.Recovery
	if r == nil || r.Failures != want || want == 0 {
		t.Fatalf("%+v failures, want %d", r, want)
	}
	if r.JobState != state || math.Abs(r.DowntimeS-down.Seconds()) > 1e-9 || a.Summary.Totals != b.Summary.Totals || len(a.Batches) != len(b.Batches) {
		t.Errorf("recovery %+v, want %s, down %v; two runs of one seed: %+v, %+v", r, state, down, a.Summary.Totals, b.Summary.Totals)
	}
}
