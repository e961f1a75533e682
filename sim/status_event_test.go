package sim

import (
	"strings"
	"testing"
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
					says := strings.HasPrefix(e.Message, e.Vertex+" is DOWN (")
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
