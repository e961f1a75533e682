package microbatch

import "math"

// PIDRateEstimator is Spark Streaming's rate estimator of back-pressure
// (spark.streaming.backpressure.enabled), as
// org.apache.spark.streaming.scheduler.rate.PIDRateEstimator computes it:
// after each completed batch it compares the rate the batch was processed
// at (records / processing time) with the rate it set last, and corrects
// by the proportional error, by the "historical" error that the scheduling
// delay accumulated, and by the derivative of the error. Times are in
// milliseconds and rates in records per second, as in Spark; the first
// batch only sets the reference rate and returns no estimate.
type PIDRateEstimator struct {
	BatchIntervalMillis                int64
	Proportional, Integral, Derivative float64
	MinRate                            float64
	firstRun                           bool
	latestTime                         int64
	latestRate, latestError            float64
}

// NewPIDRateEstimator returns an estimator with Spark's starting state
// (latestTime -1, latestRate -1, latestError -1, first run).
func NewPIDRateEstimator(batchIntervalMillis int64, proportional, integral, derivative, minRate float64) *PIDRateEstimator {
	return &PIDRateEstimator{BatchIntervalMillis: batchIntervalMillis, Proportional: proportional, Integral: integral,
		Derivative: derivative, MinRate: minRate, firstRun: true, latestTime: -1, latestRate: -1, latestError: -1}
}

// Compute is PIDRateEstimator.compute: time is the batch's processing end
// (ms), numElements its records, processingDelay and schedulingDelay its
// processing time and scheduling delay (ms). It returns the new rate in
// records per second and true, or false where Spark returns None (the
// first batch, an empty batch, a processing time of 0, or a time not after
// the last one).
func (e *PIDRateEstimator) Compute(time, numElements, processingDelay, schedulingDelay int64) (float64, bool) {
	if !(time > e.latestTime && numElements > 0 && processingDelay > 0) {
		return 0, false
	}
	delaySinceUpdate := float64(time-e.latestTime) / 1000
	processingRate := float64(numElements) / float64(processingDelay) * 1000
	err := e.latestRate - processingRate
	historicalError := float64(schedulingDelay) * processingRate / float64(e.BatchIntervalMillis)
	dError := (err - e.latestError) / delaySinceUpdate
	newRate := math.Max(e.latestRate-e.Proportional*err-e.Integral*historicalError-e.Derivative*dError, e.MinRate)
	e.latestTime = time
	if e.firstRun {
		e.latestRate = processingRate
		e.latestError = 0
		e.firstRun = false
		return 0, false
	}
	e.latestRate = newRate
	e.latestError = err
	return newRate, true
}

// maxMessagesPerPartition is DirectKafkaInputDStream.maxMessagesPerPartition
// (spark-streaming-kafka-0-10): the most records each partition may add
// to the batch, from the latest rate of the rate controller (latestRate,
// -1 before the first estimate: the initial rate then), spread over the
// partitions in proportion to their lag, capped by maxRatePerPartition
// (0 = none), times the batch interval, at least minRatePerPartition
// (compared, as in Spark, with the number of records). ok is false when
// there is no limit (Spark's None). backpressure says whether a rate
// controller exists.
func maxMessagesPerPartition(lags []int64, backpressure bool, latestRate, initialRate, maxRatePerPartition, minRatePerPartition float64, batchMillis int64, out []int64) bool {
	rate := 0.0
	if backpressure {
		rate = latestRate
		if !(rate > 0) {
			rate = initialRate
		}
	}
	limits := make([]float64, len(lags))
	sum := 0.0
	if backpressure && rate > 0 {
		var totalLag int64
		for _, l := range lags {
			totalLag += l
		}
		for i, l := range lags {
			r := float64(l) / float64(totalLag) * rate
			if maxRatePerPartition > 0 {
				r = math.Min(r, maxRatePerPartition)
			}
			limits[i] = r
		}
	} else {
		for i := range limits {
			limits[i] = maxRatePerPartition
		}
	}
	for _, l := range limits {
		sum += l
	}
	if !(sum > 0) { // 0, or NaN when no partition lags: Spark's "sum > 0" is false too (None)
		return false
	}
	secs := float64(batchMillis) / 1000
	for i, l := range limits {
		n := secs * l
		var m int64
		if !math.IsNaN(n) {
			m = int64(n) // Scala's toLong truncates toward zero
		}
		out[i] = max(m, int64(minRatePerPartition))
	}
	return true
}
