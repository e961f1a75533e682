package runner

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// progressDelay is how long a run goes on before the progress line
// appears: short runs print nothing. Tests shorten it.
var progressDelay = time.Second

// progress draws one line on a terminal, updated in place while a run goes
// on: the simulated time reached, the duration, the simulator's speed in
// records per second of wall time, the wall time left and the
// percentage, e.g.
//
//	simulating backpressure: 63.245s / 120s, 1.2M records/s, about 9s left  53% |██████████          |
type progress struct {
	w        io.Writer
	name     string
	duration des.Time
	start    time.Time
	now      func() time.Time
	bar      *progressbar.ProgressBar
}

func newProgress(w io.Writer, name string, duration des.Time) *progress {
	return &progress{w: w, name: name, duration: duration, start: time.Now(), now: time.Now}
}

// update is the simulator's Progress callback.
func (p *progress) update(now des.Time, emitted uint64) {
	wall := p.now().Sub(p.start)
	if wall < progressDelay {
		return
	}
	total := max(int64(p.duration/des.Millisecond), 1)
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(20),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(false),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionUseANSICodes(true),
			progressbar.OptionSetDescription(p.describe(now, emitted, wall)),
		)
	} else {
		p.bar.Describe(p.describe(now, emitted, wall))
	}
	// Stop short of the end: reaching it would print the final state.
	p.bar.Set64(min(int64(now/des.Millisecond), total-1))
}

// describe is the text before the bar, with the wall time left at the
// pace so far (eta).
func (p *progress) describe(now des.Time, emitted uint64, wall time.Duration) string {
	speed := float64(emitted) / wall.Seconds()
	return fmt.Sprintf("simulating %s: %s / %s, %s records/s%s", p.name,
		sim.FormatTime(now), sim.FormatTime(p.duration), Human(speed), eta(now, p.duration, wall))
}

// eta says how much wall time a run that reached now of duration in wall
// time is likely to take still, at its pace so far: ", about 2m10s
// left" (to the second; "" before any simulated time has passed).
func eta(now, duration des.Time, wall time.Duration) string {
	if now <= 0 || now >= duration {
		return ""
	}
	left := time.Duration(float64(wall) * float64(duration-now) / float64(now))
	return ", about " + max(left.Round(time.Second), time.Second).String() + " left"
}

// finish clears the line, if one was drawn.
func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Clear()
		p.bar.Exit()
	}
}

// Human formats a count with a metric suffix: 950, 12.3k, 1.2M, 3.4G.
func Human(x float64) string {
	switch a := math.Abs(x); {
	case a >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 1, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 1, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(x/1e3, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
}
