package sim

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// idleJob: source a writes 10/s for the whole run; source b 10/s until
// 10s, then nothing; both (monotonous watermarks every 300ms) into a union
// operator u and a sink, on one worker.
func idleJob(t *testing.T, idleness string) *Sim {
	t.Helper()
	sc := mustParse(t, `
name: idle
duration: 20s
workers: {count: 1, slots: 4}
sources:
  - {name: a, arrival: {process: constant, rate: 10/s}, watermarks: {strategy: monotonous, auto_watermark_interval: 300ms`+idleness+`}}
  - {name: b, arrival: {process: schedule, schedule: [{at: 0s, rate: 10/s}, {at: 10s, rate: 0/s}]}, watermarks: {strategy: monotonous, auto_watermark_interval: 300ms`+idleness+`}}
operators:
  - {name: u, inputs: [a, b], service_time: {mean: 1ms}}
sinks:
  - {name: out, input: u}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func inputWatermark(s *Sim, name string) des.Time {
	for _, v := range s.vertices {
		if v.name == name && v.subtasks[0].wm != nil {
			return v.subtasks[0].wm.in
		}
	}
	return minWatermark
}

// TestIdlenessAdvancesWatermark: b's last record comes at 10s (the 100th
// at 10/s). Without idleness the watermark of u stays at b's, 10s − 1ns,
// to the end. With idleness 2s, Flink's IdlenessTimer checks at every
// emission (every 300ms: 9.9s, 10.2s, ...): 10.2s saw the record of 10s,
// 10.5s saw none and starts the countdown, and b is idle at the first
// emission strictly more than 2s after that, 12.6s; u's valve then leaves
// b's channel out, and its watermark is a's (u takes the IDLE status
// after the record of a it is serving, 1ms). That is within T plus one
// interval of the countdown's start (12.6 − 10.5 = 2.1 <= 2.3s), and
// within T plus three intervals of the last record, as Flink documents
// WatermarksWithIdleness.
func TestIdlenessAdvancesWatermark(t *testing.T) {
	ctx := context.Background()
	stuck := 10*des.Second - 1
	s := idleJob(t, "")
	if err := s.RunUntil(ctx, 20*des.Second); err != nil {
		t.Fatal(err)
	}
	if got := inputWatermark(s, "u"); got != stuck {
		t.Errorf("without idleness: watermark of u at 20s = %s, want b's %s", FormatTime(got), FormatTime(stuck))
	}
	if got := inputWatermark(s, "out"); got != stuck {
		t.Errorf("without idleness: watermark of out at 20s = %s, want %s (forwarded by u)", FormatTime(got), FormatTime(stuck))
	}

	s = idleJob(t, ", idleness: 2s")
	if err := s.RunUntil(ctx, 12599*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := inputWatermark(s, "u"); got != stuck {
		t.Errorf("with idleness 2s: watermark of u at 12.599s = %s, want still %s (b is not idle yet)", FormatTime(got), FormatTime(stuck))
	}
	// u, busy for 1ms with a's record of 12.6s, takes b's IDLE status
	// next
	if err := s.RunUntil(ctx, 12602*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	// a's watermark at 12.6s: its record of 12.6s, or of 12.5s if its
	// own emission came first
	if got := inputWatermark(s, "u"); got < 12500*des.Millisecond-1 {
		t.Errorf("with idleness 2s: watermark of u at 12.602s = %s, want a's, about 12.6s", FormatTime(got))
	}
	if err := s.RunUntil(ctx, 20*des.Second); err != nil {
		t.Fatal(err)
	}
	// a's last emission at 20s is that of 19.8s (every 300ms), its
	// record of 19.8s or of 19.7s
	if got, want := inputWatermark(s, "out"), 19700*des.Millisecond-1; got < want {
		t.Errorf("with idleness 2s: watermark of out at 20s = %s, want at least %s", FormatTime(got), FormatTime(want))
	}
}

// TestValveMinimumOverActiveChannels follows StatusWatermarkValve: the
// output is the minimum over active channels, never goes back, an idle
// channel is left out, and when the last active one goes idle the valve
// flushes the largest watermark.
func TestValveMinimumOverActiveChannels(t *testing.T) {
	a, b := &channel{}, &channel{}
	v := newWatermarkValve([]*channel{a, b})
	wm := func(c *channel, x des.Time) event { return event{kind: watermarkEvent, watermark: x} }
	idle := event{kind: watermarkStatusEvent, idle: true}
	steps := []struct {
		c      *channel
		ev     event
		wantWM des.Time
		out    int
	}{
		{a, wm(a, 5), 0, valveNothing},                         // b has none yet
		{b, wm(b, 3), 3, valveWatermark},                       // min(5, 3)
		{b, wm(b, 2), 0, valveNothing},                         // not past b's last
		{b, wm(b, 9), 5, valveWatermark},                       // min(5, 9)
		{a, idle, 9, valveWatermark},                           // a left out: b's 9
		{b, idle, 0, valveStatus},                              // all idle: 9 already out, the valve goes idle
		{a, event{kind: watermarkStatusEvent}, 0, valveStatus}, // a active again
		{a, wm(a, 7), 0, valveNothing},                         // a not aligned until it catches up with 9
		{a, wm(a, 12), 12, valveWatermark},
	}
	for i, st := range steps {
		got, _, out := v.input(st.c, st.ev)
		if out != st.out || (out == valveWatermark && got != st.wantWM) {
			t.Errorf("step %d: out %d watermark %d, want out %d watermark %d", i, out, got, st.out, st.wantWM)
		}
	}
}
