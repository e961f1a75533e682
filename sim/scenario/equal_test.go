package scenario

import "testing"

func TestSameValueAndIsDefault(t *testing.T) {
	for _, c := range []struct {
		path, a, b string
		same       bool
	}{
		{"operators[].service_time.mean", "6ms", "6000us", true},
		{"operators[].service_time.mean", "6ms", "6.1ms", false},
		{"sources[].arrival.rate", "400/s", "24000/min", true},
		{"network.buffer_size", "32KiB", "32768B", true},
		{"operators[].parallelism", "2", "2.0", true},
		{"operators[].service_time.distribution", "exponential", "constant", false},
		{"operators[].no_such", "1", "1", false},
		{"sources[].arrival.rate", "fast", "fast", false}, // does not parse: the texts decide
	} {
		if got := SameValue(c.path, c.a, c.b); got != c.same {
			t.Errorf("SameValue(%s, %s, %s) = %v, want %v", c.path, c.a, c.b, got, c.same)
		}
	}
	for _, c := range []struct {
		path, v string
		def     bool
	}{
		{"operators[].selectivity", "1.0", true},
		{"operators[].selectivity", "2", false},
		{"operators[].parallelism", "1", true},
		{"network.buffer_timeout", "100ms", true},
		{"network.buffer_timeout", "0.1s", true},
		{"name", "x", false},
	} {
		if got := IsDefault(c.path, c.v); got != c.def {
			t.Errorf("IsDefault(%s, %s) = %v, want %v", c.path, c.v, got, c.def)
		}
	}
}
