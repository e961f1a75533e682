package plot

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The event-time fixtures are runs of built-ins cut to 60s (dspalab run
// --out with the duration changed): run-idle is idle-source (the eu
// source goes quiet at 30s and holds the count's watermark there),
// run-late is watermark-bound (delays of up to 2s against a bound of
// 500ms: late records dropped by the window).

var eventTimeFilter = TimeseriesFilter{Metrics: []string{}, Optional: EventTimeMetrics}

// pngFor writes fig as testdata/golden/NAME.png when DSPALAB_PLOT_PNG is
// set, to look at while changing a figure.
func pngFor(t *testing.T, name string, fig *Figure) {
	if os.Getenv("DSPALAB_PLOT_PNG") == "" {
		return
	}
	f, err := os.Create(filepath.Join(os.Getenv("DSPALAB_PLOT_PNG"), name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := fig.WriteTo(f, PNG); err != nil {
		t.Fatal(err)
	}
}

func TestGoldenWatermarks(t *testing.T) {
	idle := readTestRun(t, "run-idle", eventTimeFilter)
	fig, err := Watermarks([]*Run{idle}, EventTimeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pngFor(t, "watermarks", fig)
	golden(t, "watermarks", fig)
}

func TestGoldenEventTimeLagCDF(t *testing.T) {
	late := readTestRun(t, "run-late", eventTimeFilter)
	idle := readTestRun(t, "run-idle", eventTimeFilter)
	fig, err := EventTimeLagCDF([]*Run{late, idle}, EventTimeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pngFor(t, "event-time-lag-cdf", fig)
	golden(t, "event-time-lag-cdf", fig)
}

func TestGoldenLateRecords(t *testing.T) {
	late := readTestRun(t, "run-late", eventTimeFilter)
	fig, err := LateRecords([]*Run{late}, EventTimeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pngFor(t, "late", fig)
	golden(t, "late", fig)
}

// TestPerSecond: a count 0, 30, 30, 45 at 1, 2, 3, 4s is 0, 30, 0, 15
// records/s; sampled at 2 and 5s from 10, 40: 5 and 10/s; a restart that
// starts the count again from 0 (at 12 after 40) counts 12 over its
// interval; a missing value is NaN and the next interval counts from the
// last value.
func TestPerSecond(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct{ xs, ys, want []float64 }{
		{[]float64{1, 2, 3, 4}, []float64{0, 30, 30, 45}, []float64{0, 30, 0, 15}},
		{[]float64{2, 5}, []float64{10, 40}, []float64{5, 10}},
		{[]float64{1, 2, 3}, []float64{40, 12, 20}, []float64{40, 12, 8}},
		{[]float64{1, 2, 4}, []float64{5, nan, 25}, []float64{5, nan, 10}},
	} {
		got := perSecond(tc.xs, tc.ys)
		for i := range got {
			if !(got[i] == tc.want[i] || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
				t.Errorf("perSecond(%v, %v) = %v, want %v", tc.xs, tc.ys, got, tc.want)
				break
			}
		}
	}
}

// TestEventTimeErrors: a run without event time is refused by each
// figure with the sentence that says how to get one; a vertex that is not
// a sink with a lag distribution is unknown, the sinks listed; a run
// with event time but no window has no late records.
func TestEventTimeErrors(t *testing.T) {
	a := readTestRun(t, "run-a", eventTimeFilter)
	for name, draw := range map[string]func([]*Run, EventTimeOptions) (*Figure, error){
		"Watermarks": Watermarks, "EventTimeLagCDF": EventTimeLagCDF, "LateRecords": LateRecords,
	} {
		_, err := draw([]*Run{a}, EventTimeOptions{})
		var ne *NoEventTimeError
		if !errors.As(err, &ne) || err.Error() != "run-a: this run has no event time: add watermarks: to a source (or a window: or join: to an operator)" {
			t.Errorf("%s of run-a: %v, want a NoEventTimeError", name, err)
		}
	}
	late := readTestRun(t, "run-late", eventTimeFilter)
	_, err := EventTimeLagCDF([]*Run{late}, EventTimeOptions{Vertices: []string{"average"}})
	var ue *UnknownError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `unknown vertex "average" in run-late; vertices: out`) {
		t.Errorf("lag CDF of a window: %v", err)
	}
	_, err = LateRecords([]*Run{late}, EventTimeOptions{Vertices: []string{"out"}})
	var nd *NoDataError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), "no window or join operator among out") {
		t.Errorf("late records of a sink: %v", err)
	}
}
