package scenario

import (
	"strings"
	"testing"
)

// Fields of one engine given to the other are refused with file:line:col,
// saying which engine takes them; so are a missing batch interval, append
// mode on an aggregation without a watermark, and a continuous trigger on
// an aggregation.
func TestSparkErrors(t *testing.T) {
	const job = "duration: 10s\nsources: [{name: in, arrival: {process: constant, rate: 10/s}}]\noperators: [{name: agg, input: in, partitioning: hash, service_time: {mean: 1ms}, state: {bytes_per_key: 64B}}]\nsinks: [{name: out, input: agg}]\n"
	for _, c := range []struct{ head, want string }{
		{"engine: spark-streaming\nspark: {batch_interval: 1s, checkpoint: true}\nnetwork: {buffer_timeout: 10ms}\n",
			"t.yaml:3:1: network: this field belongs to engine: flink, not spark-streaming"},
		{"spark: {batch_interval: 1s}\n", "t.yaml:1:1: spark: this field belongs to engine: spark-streaming or structured-streaming, not flink (the default)"},
		{"engine: spark-streaming\nspark: {batch_interval: 0s, checkpoint: true}\n", "t.yaml:2:25: spark.batch_interval: must be greater than 0, got 0s"},
		{"engine: spark-streaming\nspark: {batch_interval: -1s, checkpoint: true}\n", "t.yaml:2:25: spark.batch_interval: must be greater than 0, got -1s"},
		{"engine: structured-streaming\nspark: {trigger: processing-time, trigger_interval: 1ns}\n",
			"t.yaml:2:53: spark.trigger_interval: must be at least 1ms (Spark's trigger interval is in milliseconds: Trigger.ProcessingTime(intervalMs)), got 1ns"},
		{"engine: spark-streaming\nspark: {checkpoint: true}\n", "t.yaml:2:8: spark: engine spark-streaming needs batch_interval"},
		{"engine: structured-streaming\nspark: {batch_interval: 1s}\n", "t.yaml:2:25: spark.batch_interval: this field belongs to engine: spark-streaming, not structured-streaming"},
		{"engine: structured-streaming\nspark: {output_mode: append}\n", "t.yaml:2:22: spark.output_mode: append mode on an aggregation needs a watermark"},
		{"engine: structured-streaming\nspark: {output_mode: append, watermark: 1s}\n", "t.yaml:2:22: spark.output_mode: append mode on an aggregation needs an event-time window (spark.window)"},
		{"engine: structured-streaming\nspark: {trigger: continuous, trigger_interval: 1s}\n", "t.yaml:2:18: spark.trigger: a continuous trigger supports only map-like operations"},
		{"engine: spark-streaming\nspark: {batch_interval: 1s}\n", "t.yaml:2:8: spark: updateStateByKey and mapWithState need checkpoint: true"},
		{"engine: spark-streaming\nspark: {batch_interval: 1s, checkpoint: true}\nfailures: [{kind: slowdown, vertex: agg, at: 5s, duration: 1s}]\n",
			"t.yaml:3:19: failures[0].kind: on engine spark-streaming a failure is task (an attempt of a task fails and runs again), worker (an executor dies with its cores and cached state) or jobmanager (the driver dies), got slowdown"},
		{"engine: spark-streaming\nspark: {batch_interval: 1s, checkpoint: true, task_max_failures: 0}\n",
			"t.yaml:2:66: spark.task_max_failures: must be at least 1, got 0"},
		{"engine: spark-streaming\nspark: {batch_interval: 1s, checkpoint: true, buffer_timeout: 5ms}\n",
			"t.yaml:2:47: spark.buffer_timeout: buffer_timeout is Flink's (execution.buffer-timeout, network.buffer_timeout of engine: flink)"},
		{"engine: sparkstreaming\n", `t.yaml:1:9: engine: unknown engine "sparkstreaming"; did you mean "spark-streaming"?`},
	} {
		_, err := Parse("t.yaml", []byte(c.head+job))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s...", c.head, err, c.want)
		}
	}
	flinkOnly := "engine: structured-streaming\nspark: {output_mode: update}\nduration: 10s\n" +
		"sources: [{name: in, arrival: {process: constant, rate: 10/s}, watermarks: {strategy: monotonous}}]\nsinks: [{name: out, input: in}]\n"
	if _, err := Parse("t.yaml", []byte(flinkOnly)); err == nil || !strings.Contains(err.Error(), "sources[0].watermarks: this field belongs to engine: flink (Flink's WatermarkStrategy); Structured Streaming's watermark is spark.watermark, not structured-streaming") {
		t.Errorf("watermarks on structured streaming: %v", err)
	}
	for _, head := range []string{"", "failures: [{kind: task, vertex: agg, at: 5s}, {kind: task, mtbf: 1m}]\n"} {
		if _, err := Parse("t.yaml", []byte("engine: spark-streaming\nspark: {batch_interval: 1s, checkpoint: true}\n"+head+job)); err != nil {
			t.Errorf("valid: %v", err)
		}
	}
}
