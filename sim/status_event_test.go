package sim

import (
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// TestStatusEventOfDownVertex checks that a back-pressure status event of
// a vertex whose row is DOWN (a subtask not running) says DOWN first, as
// the row and the live view do, and never calls the vertex OK: in
// exactly-once (with 4KiB records), sensors turns HIGH at 46s while
// sensors[1] is on the lost worker, and back-pressure ends at 56s while
// the job restarts.
func TestStatusEventOfDownVertex(t *testing.T) {
	sc := mustLoadBuiltin(t, "exactly-once")
	sc.Sources[0].RecordSize = 4096 // 8 to a buffer: those into the lost worker fill in seconds
	var pending []Event
	var down []string
	obs := &countingObserver{
		onEvent: func(e Event) {
			if e.Type == EventStatusChanged {
				pending = append(pending, e)
			}
		},
		onSample: func(smp *Sample) {
			for _, e := range pending {
				for _, r := range smp.Rows {
					if r.Vertex != e.Vertex || r.Subtask != -1 {
						continue
					}
					isDown := r.Status == StatusDown
					says := strings.HasPrefix(e.Message, e.Vertex+" is DOWN (") || strings.HasPrefix(e.Message, e.Vertex+" is "+e.To+", then DOWN (")
					if isDown != says {
						t.Errorf("%s: %s's row is %s, the event says %q", FormatTime(smp.Time), e.Vertex, r.Status, e.Message)
					}
					if isDown {
						down = append(down, FormatTime(smp.Time)+" "+e.Message)
					}
				}
			}
			pending = pending[:0]
		},
	}
	runSim(t, sc, Options{Observer: obs})
	want := []string{
		"46s sensors is DOWN (1 of 2 subtasks), the rest HIGH: back-pressured 611 ms/s, busy 236 ms/s",
		"56s sensors is DOWN (all 2 subtasks): not running, not back-pressured",
	}
	if strings.Join(down, "\n") != strings.Join(want, "\n") {
		t.Errorf("status events of a DOWN vertex:\n%s\nwant\n%s", strings.Join(down, "\n"), strings.Join(want, "\n"))
	}
}

// TestStatusEventOfVertexGoneDown: in the built-in exactly-once, the
// failover at 55s (worker 1 lost at 45s, noticed after the 10s heartbeat
// timeout) cancels every subtask of sensors at the end of a second in
// which sensors[0] was back-pressured all the time: the event's status is
// HIGH, what the second measured, and its message says so beside DOWN.
// No event says "not back-pressured" with a status other than OK.
func TestStatusEventOfVertexGoneDown(t *testing.T) {
	var got []string
	obs := &countingObserver{onSample: func(*Sample) {}, onEvent: func(e Event) {
		if e.Type != EventStatusChanged {
			return
		}
		if e.To != StatusOK && strings.Contains(e.Message, "not back-pressured") {
			t.Errorf("%s: to %s, but %q", FormatTime(e.Time), e.To, e.Message)
		}
		if e.Vertex == "sensors" && e.Time >= 55*des.Second && e.Time <= 56*des.Second {
			got = append(got, FormatTime(e.Time)+" "+e.From+"->"+e.To+" "+e.Message)
		}
	}}
	runSim(t, mustLoadBuiltin(t, "exactly-once"), Options{Observer: obs})
	want := []string{
		"55s OK->HIGH sensors is HIGH, then DOWN (all 2 subtasks): back-pressured 1000 ms/s, busy 0 ms/s until its subtasks stopped",
		"56s HIGH->OK sensors is DOWN (all 2 subtasks): not running, not back-pressured",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sensors' status events at 55s..56s:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
