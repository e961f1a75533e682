package runner

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Default limits. They keep a typo (a rate of 1e9/s, a duration of 30d)
// from tying up a machine for hours; each has a flag that raises it.
const (
	DefaultMaxSubtasks = 4096
	DefaultMaxDuration = 7 * 24 * des.Hour
	DefaultMaxEvents   = 5e9
	// DefaultMaxEventRate is in events per simulated second: at about 10
	// million events per wall second, one simulated second then takes up to
	// ten wall seconds.
	DefaultMaxEventRate = 1e8
)

// Limits bound what Run agrees to simulate; a scenario over any of them is
// refused before the run starts. A zero field means its default.
type Limits struct {
	// MaxSubtasks bounds the total number of subtasks over all vertices
	// (--max-subtasks).
	MaxSubtasks int
	// MaxDuration bounds the simulated duration (--max-duration).
	MaxDuration des.Time
	// MaxEvents bounds the estimated number of record events: the records
	// per simulated second the sources offer, times the number of
	// vertices, times the duration in simulated seconds (--max-events).
	MaxEvents float64
	// MaxEventRate bounds the estimated record events per simulated
	// second: the records per simulated second the sources offer, times
	// the number of vertices (--max-event-rate).
	MaxEventRate float64
}

// withDefaults fills the zero fields of l.
func (l Limits) withDefaults() Limits {
	if l.MaxSubtasks <= 0 {
		l.MaxSubtasks = DefaultMaxSubtasks
	}
	if l.MaxDuration <= 0 {
		l.MaxDuration = DefaultMaxDuration
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	if l.MaxEventRate <= 0 {
		l.MaxEventRate = DefaultMaxEventRate
	}
	return l
}

// Estimate is what CheckLimits measures of a scenario.
type Estimate struct {
	Subtasks  int      // subtasks over all vertices
	Vertices  int      // sources, operators and sinks
	Offered   float64  // records per simulated second offered by all sources (mean)
	Duration  des.Time // simulated duration
	EventRate float64  // Offered × Vertices, events per simulated second
	Events    float64  // EventRate × Duration in seconds
}

// Measure estimates the size of a run of sc. The offered rate of a source
// is its mean rate per subtask times its parallelism: Rate for constant and
// poisson, the on/off mix for bursty, and the time-weighted mean of the
// steps over the duration for schedule.
func Measure(sc *scenario.Scenario) Estimate {
	e := Estimate{Duration: sc.Duration}
	for _, s := range sc.Sources {
		e.Subtasks += s.Parallelism
		e.Offered += meanRate(s.Arrival, sc.Duration) * float64(s.Parallelism)
	}
	for _, o := range sc.Operators {
		e.Subtasks += o.Parallelism
	}
	for _, s := range sc.Sinks {
		e.Subtasks += s.Parallelism
	}
	e.Vertices = len(sc.Sources) + len(sc.Operators) + len(sc.Sinks)
	e.EventRate = e.Offered * float64(e.Vertices)
	e.Events = e.EventRate * sc.Duration.Seconds()
	return e
}

// meanRate is the mean arrival rate of one source subtask over [0, d], in
// records per simulated second.
func meanRate(a scenario.Arrival, d des.Time) float64 {
	switch a.Process {
	case scenario.ArrivalBursty:
		if a.On+a.Off <= 0 {
			return a.Rate
		}
		on := float64(a.On) / float64(a.On+a.Off)
		return a.Rate*on + a.OffRate*(1-on)
	case scenario.ArrivalSchedule:
		if d <= 0 || len(a.Schedule) == 0 {
			return 0
		}
		var sum float64 // records
		for i, st := range a.Schedule {
			end := d
			if i+1 < len(a.Schedule) {
				end = min(a.Schedule[i+1].At, d)
			}
			if end > st.At {
				sum += st.Rate * (end - st.At).Seconds()
			}
		}
		return sum / d.Seconds()
	default:
		return a.Rate
	}
}

// CheckLimits refuses a scenario over any limit of l (zero fields meaning
// the defaults), with one message per limit exceeded, each naming the
// limit and the flag that raises it, for example:
//
//	scenario "x.yaml": about 1.2e10 events (sources offer 1.0e8 records/s over 120s through 5 vertices) exceed the limit of 5e9; shorten duration, lower the rates, or raise --max-events
//
// label names the scenario in the messages. Several messages are joined
// with errors.Join.
func CheckLimits(label string, sc *scenario.Scenario, l Limits) error {
	l = l.withDefaults()
	e := Measure(sc)
	var errs []error
	if e.Subtasks > l.MaxSubtasks {
		errs = append(errs, fmt.Errorf("scenario %q: %d subtasks exceed the limit of %d; lower the parallelism or raise --max-subtasks",
			label, e.Subtasks, l.MaxSubtasks))
	}
	if e.Duration > l.MaxDuration {
		errs = append(errs, fmt.Errorf("scenario %q: a duration of %s exceeds the limit of %s; shorten it (--duration) or raise --max-duration",
			label, FormatDuration(e.Duration), FormatDuration(l.MaxDuration)))
	}
	if e.EventRate > l.MaxEventRate {
		errs = append(errs, fmt.Errorf("scenario %q: about %s events per simulated second (sources offer %s records/s through %d vertices) exceed the limit of %s; lower the rates or raise --max-event-rate",
			label, Sci(e.EventRate, 1), Sci(e.Offered, 1), e.Vertices, Sci(l.MaxEventRate, -1)))
	}
	if e.Events > l.MaxEvents {
		errs = append(errs, fmt.Errorf("scenario %q: about %s events (sources offer %s records/s over %s through %d vertices) exceed the limit of %s; shorten duration, lower the rates, or raise --max-events",
			label, Sci(e.Events, 1), Sci(e.Offered, 1), FormatDuration(e.Duration), e.Vertices, Sci(l.MaxEvents, -1)))
	}
	return errors.Join(errs...)
}

// FormatDuration formats simulated time as the scenario format reads it,
// for messages: in seconds under 1000s ("120s", "0.5s", "63.2s"), else
// without zero trailing units ("1h", "168h", "1h30m").
func FormatDuration(t des.Time) string {
	if t < 1000*des.Second && t > -1000*des.Second {
		return strconv.FormatFloat(t.Seconds(), 'f', -1, 64) + "s"
	}
	s := scenario.FormatDuration(t)
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Sci formats a count for messages: plainly below 100,000, rounded to one
// decimal ("4096", "2.5"), else in scientific notation without a plus sign or leading zeros
// in the exponent, with prec decimals (-1: as few as needed), e.g.
// Sci(1.234e10, 1) = "1.2e10", Sci(5e9, -1) = "5e9".
func Sci(x float64, prec int) string {
	if math.Abs(x) < 1e5 {
		return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', prec, 64)
	mant, exp, _ := strings.Cut(s, "e")
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "e" + exp
}
