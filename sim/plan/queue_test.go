package plan

import (
	"testing"

	"github.com/dspalab/dspalab/sim/scenario"
)

// TestQueueEstimate: 100/s published for 90s: at most 9001 messages
// ready, and as many unacknowledged (a visibility timeout of 30s at
// 100us a delivery would allow 300,001); with 1000/s for 1h and a
// visibility timeout of 1s, unacknowledged ones are bounded by 1s/100us.
func TestQueueEstimate(t *testing.T) {
	job := func(rate, dur, vt string) string {
		return `duration: ` + dur + `
queues:
  - {name: orders, visibility_timeout: ` + vt + `}
sources:
  - name: app
    arrival: {process: constant, rate: ` + rate + `}
    writes: {queue: orders}
  - name: etl
    arrival: {process: queue, queue: orders}
sinks:
  - {name: out, input: etl}
`
	}
	for _, c := range []struct {
		rate, dur, vt           string
		ready, unacked, offered float64
	}{{"100/s", "90s", "30s", 9001, 9001, 100}, {"1000/s", "1h", "1s", 3600001, 10001, 1000}} {
		sc, err := scenario.Parse("t.yaml", []byte(job(c.rate, c.dur, c.vt)))
		if err != nil {
			t.Fatal(err)
		}
		e := compile(t, sc).Estimate(nil)
		want := int64(c.ready)*BytesPerReadyMessage + int64(c.unacked)*BytesPerUnackedMessage
		if e.ReadyMessages != c.ready || e.UnackedMessages != c.unacked || e.MessageBytes != want || e.Memory < want {
			t.Errorf("%s for %s: ready %g, unacked %g, %d bytes (memory %d); want %g, %g, %d", c.rate, c.dur,
				e.ReadyMessages, e.UnackedMessages, e.MessageBytes, e.Memory, c.ready, c.unacked, want)
		}
		if e.Offered != c.offered {
			t.Errorf("offered %g, want the producers' %g", e.Offered, c.offered)
		}
	}
}
