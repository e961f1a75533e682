package microbatch

import (
	"math"
	"slices"
	"testing"
)

// The PID rate sequence of a scripted history of batches, against Spark's
// formula worked by hand (batch interval 1000ms; gains 1, 0.2, 0; min
// rate 100):
//
//	newRate = max(latestRate − Kp·error − Ki·historicalError − Kd·dError, minRate)
//	processingRate = elements / processingDelay × 1000
//	error = latestRate − processingRate
//	historicalError = schedulingDelay × processingRate / batchInterval
//	dError = (error − latestError) / ((time − latestTime) / 1000)
func TestPIDSequence(t *testing.T) {
	type row struct {
		time, n, proc, sched int64
		want                 float64 // -1: no estimate (Spark's None)
	}
	for _, c := range []struct {
		name       string
		kp, ki, kd float64
		rows       []row
	}{
		{"defaults", 1, 0.2, 0, []row{
			{1000, 1000, 500, 0, -1},       // first run: latestRate = 2000, latestError = 0
			{2000, 2000, 1600, 0, 1250},    // rate 1250, error 750: 2000 − 750
			{2500, 0, 100, 0, -1},          // no records: skipped, nothing changes
			{2000, 100, 100, 0, -1},        // not after latestTime: skipped
			{3100, 1250, 1000, 600, 1100},  // rate 1250, error 0, historical 750: 1250 − 0.2 × 750
			{4000, 1100, 800, 100, 1347.5}, // rate 1375, error −275, historical 137.5: 1100 + 275 − 27.5
			{5000, 10, 1000, 0, 100},       // rate 10, error 1337.5: 10, below minRate
			{6000, 1000, 0, 0, -1},         // processing delay 0: skipped
		}},
		{"derivative", 1, 0.2, 0.5, []row{
			{1000, 1000, 500, 0, -1},
			{2000, 2000, 1600, 0, 875},     // dError 750: 2000 − 750 − 0.5 × 750
			{4000, 875, 500, 250, 2068.75}, // rate 1750, error −875, historical 437.5, dError (−875 − 750)/2 = −812.5: 875 + 875 − 87.5 + 406.25
		}},
	} {
		e := NewPIDRateEstimator(1000, c.kp, c.ki, c.kd, 100)
		for i, r := range c.rows {
			got, ok := e.Compute(r.time, r.n, r.proc, r.sched)
			if !ok {
				got = -1
			}
			if math.Abs(got-r.want) > 1e-9 {
				t.Errorf("%s row %d: rate %v, want %v", c.name, i, got, r.want)
			}
		}
	}
}

// DirectKafkaInputDStream.maxMessagesPerPartition: the rate spread over
// the partitions by lag, capped per partition, times the batch interval,
// at least minRatePerPartition messages.
func TestMaxMessagesPerPartition(t *testing.T) {
	for _, c := range []struct {
		name                     string
		lags                     []int64
		bp                       bool
		rate, initial, maxR, min float64
		ms                       int64
		want                     []int64 // nil: no limit
	}{
		{"by lag", []int64{300, 100}, true, 1000, 0, 0, 1, 2000, []int64{1500, 500}},
		{"capped", []int64{300, 100}, true, 1000, 0, 600, 1, 2000, []int64{1200, 500}},
		{"no controller", []int64{300, 100}, false, 1000, 0, 100, 1, 2000, []int64{200, 200}},
		{"nothing set", []int64{300, 100}, false, -1, 0, 0, 1, 2000, nil},
		{"initial rate", []int64{1, 3}, true, -1, 400, 0, 1, 2000, []int64{200, 600}},
		{"no estimate, no initial rate: maxRatePerPartition", []int64{1, 3}, true, -1, 0, 50, 1, 1000, []int64{50, 50}},
		{"min rate", []int64{0, 100}, true, 1000, 0, 0, 1, 2000, []int64{1, 2000}},
		{"truncated", []int64{1, 2}, true, 100, 0, 0, 1, 1000, []int64{33, 66}},
	} {
		out := make([]int64, len(c.lags))
		ok := maxMessagesPerPartition(c.lags, c.bp, c.rate, c.initial, c.maxR, c.min, c.ms, out)
		if c.want == nil {
			if ok {
				t.Errorf("%s: limits %v, want none", c.name, out)
			}
			continue
		}
		if !ok || !slices.Equal(out, c.want) {
			t.Errorf("%s: limits %v (%v), want %v", c.name, out, ok, c.want)
		}
	}
}

// toLong saturates as the JVM's d2l does: a PID estimate past the int64
// range is Long.MaxValue (no limit), not Go's undefined conversion.
func TestToLong(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int64
	}{{3205.9, 3205}, {-2.5, -2}, {1e100, math.MaxInt64}, {-1e100, math.MinInt64}, {math.Inf(1), math.MaxInt64}, {math.NaN(), 0}} {
		if got := toLong(c.x); got != c.want {
			t.Errorf("toLong(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}
