package scenario

import (
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

func TestParseDuration(t *testing.T) {
	ok := []struct {
		in   string
		want des.Time
	}{
		{"250ms", 250 * des.Millisecond},
		{"10s", 10 * des.Second},
		{"1.5s", 1500 * des.Millisecond},
		{"2m", 2 * des.Minute},
		{"1h30m", 90 * des.Minute},
		{"500us", 500 * des.Microsecond},
		{"500µs", 500 * des.Microsecond}, // U+00B5 micro sign
		{"500μs", 500 * des.Microsecond}, // U+03BC Greek mu
		{"100ns", 100},
		{"0", 0},
		{"0.0", 0},
		{"0s", 0},
		{" 250 ms ", 250 * des.Millisecond},
		{"2min", 2 * des.Minute}, // the spellings rates take (issue 12, point 15)
		{"10sec", 10 * des.Second},
		{"1h30min", 90 * des.Minute},
		{"1 min 30 sec", 90 * des.Second},
		{"10 s", 10 * des.Second},
		{"1h 30m", 90 * des.Minute},
		{".5s", 500 * des.Millisecond},
		{"1.000000001s", des.Second + 1},
		{"-5s", -5 * des.Second},
		{"+5s", 5 * des.Second},
		{"2562047h", 2562047 * des.Hour},
	}
	for _, c := range ok {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", `expected a duration such as 250ms or 2s, got ""`},
		{"5", `expected a duration such as 250ms or 2s, got "5" (a number needs a unit)`},
		{"2.5", `expected a duration such as 250ms or 2s, got "2.5" (a number needs a unit)`},
		{"25 parsecs", `expected a duration such as 250ms or 2s, got "25 parsecs" (unknown unit "parsecs"; units are ns, us (or µs), ms, s (or sec), m (or min) and h)`},
		{"2mins", `expected a duration such as 250ms or 2s, got "2mins" (unknown unit "mins"; units are ns, us (or µs), ms, s (or sec), m (or min) and h)`},
		{"2S", `expected a duration such as 250ms or 2s, got "2S" (unknown unit "S"; units are ns, us (or µs), ms, s (or sec), m (or min) and h)`},
		{"s", `expected a duration such as 250ms or 2s, got "s"`},
		{"1.2.3s", `expected a duration such as 250ms or 2s, got "1.2.3s"`},
		{"1 5s", `expected a duration such as 250ms or 2s, got "1 5s"`},
		{"-", `expected a duration such as 250ms or 2s, got "-"`},
		{"1s-", `expected a duration such as 250ms or 2s, got "1s-"`},
		{"3000000h", `expected a duration such as 250ms or 2s, got "3000000h" (too large; at most 2562047h)`},
		{"1e3s", `expected a duration such as 250ms or 2s, got "1e3s" (a duration takes no exponent; use a unit such as ms, s, m or h)`},
		{"2.5E-3s", `expected a duration such as 250ms or 2s, got "2.5E-3s" (a duration takes no exponent; use a unit such as ms, s, m or h)`},
		{strings.Repeat("9", 100) + "h", `expected a duration such as 250ms or 2s, got "` + strings.Repeat("9", 60) + `…" (too large; at most 2562047h)`},
	}
	for _, c := range bad {
		got, err := ParseDuration(c.in)
		if err == nil || err.Error() != c.msg {
			t.Errorf("ParseDuration(%q) = %v, %v; want error %s", c.in, got, err, c.msg)
		}
	}
}

func TestParseRate(t *testing.T) {
	ok := []struct {
		in   string
		want float64
	}{
		{"100/s", 100},
		{"6000/min", 100},
		{"6000/m", 100},
		{"2.5/ms", 2500},
		{"3600/h", 1},
		{"1/us", 1e6},
		{"1/µs", 1e6},
		{"1/ns", 1e9},
		{"100 / s", 100},
		{" 100/sec ", 100},
		{"1e6/s", 1e6},
		{"0", 0},
		{"0/s", 0},
		{".5/s", 0.5},
		{"-3/s", -3},
	}
	for _, c := range ok {
		got, err := ParseRate(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"100", `expected a rate such as 100/s or 6000/min, got "100" (a number needs a unit)`},
		{"100/d", `expected a rate such as 100/s or 6000/min, got "100/d" (unknown unit "d"; units are /ns, /us (or /µs), /ms, /s (or /sec), /m (or /min) and /h)`},
		{"100 records/s", `expected a rate such as 100/s or 6000/min, got "100 records/s"`},
		{"100s", `expected a rate such as 100/s or 6000/min, got "100s" (a rate is a number, "/" and a unit)`},
		{"fast", `expected a rate such as 100/s or 6000/min, got "fast"`},
		{"", `expected a rate such as 100/s or 6000/min, got ""`},
		{"1e999/s", `expected a rate such as 100/s or 6000/min, got "1e999/s" (too large)`},
		{"/s", `expected a rate such as 100/s or 6000/min, got "/s"`},
	}
	for _, c := range bad {
		got, err := ParseRate(c.in)
		if err == nil || err.Error() != c.msg {
			t.Errorf("ParseRate(%q) = %v, %v; want error %s", c.in, got, err, c.msg)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	ok := []struct {
		in   string
		want int64
	}{
		{"100B", 100},
		{"32KiB", 32 << 10},
		{"1MiB", 1 << 20},
		{"1GiB", 1 << 30},
		{"1TiB", 1 << 40},
		{"1KB", 1000},
		{"1kB", 1000},
		{"1MB", 1e6},
		{"1GB", 1e9},
		{"0", 0},
		{"0.0", 0},
		{"32 KiB", 32 << 10},
		{"1.5KiB", 1536},
		{"0.1KiB", 102}, // rounded to the nearest byte
		{"1e3B", 1000},
		{"-1KiB", -1024},
	}
	for _, c := range ok {
		got, err := ParseByteSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseByteSize(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"100b", `expected a size such as 100B or 32KiB, got "100b" (unknown unit "b"; units are B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024))`},
		{"1.5", `expected a size such as 100B or 32KiB, got "1.5" (a number needs a unit, such as 1.5B or 1.5MiB)`},
		{"512", `expected a size such as 100B or 32KiB, got "512" (a number needs a unit, such as 512B or 512MiB)`},
		{"+32", `expected a size such as 100B or 32KiB, got "+32" (a number needs a unit, such as 32B or 32MiB)`},
		{"KiB", `expected a size such as 100B or 32KiB, got "KiB"`},
		{"", `expected a size such as 100B or 32KiB, got ""`},
		{"10000000TiB", `expected a size such as 100B or 32KiB, got "10000000TiB" (too large)`},
		{"1 2B", `expected a size such as 100B or 32KiB, got "1 2B"`},
	}
	for _, c := range bad {
		got, err := ParseByteSize(c.in)
		if err == nil || err.Error() != c.msg {
			t.Errorf("ParseByteSize(%q) = %v, %v; want error %s", c.in, got, err, c.msg)
		}
	}
}

func TestParseBandwidth(t *testing.T) {
	ok := []struct {
		in   string
		want float64
	}{
		{"1Gbit/s", 125e6},
		{"100Mbit/s", 12.5e6},
		{"10kbit/s", 1250},
		{"10MB/s", 1e7},
		{"125MB/s", 125e6},
		{"1GiB/s", 1 << 30},
		{"1Gbps", 125e6},
		{"8bit/s", 1},
		{"100 B/s", 100},
		{"1 Gbit / s", 125e6},
		{"0", 0},
	}
	for _, c := range ok {
		got, err := ParseBandwidth(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"1Gbit", `expected a bandwidth such as 1Gbit/s or 125MB/s, got "1Gbit" (missing "/s" after "Gbit")`},
		{"1Gbit/ms", `expected a bandwidth such as 1Gbit/s or 125MB/s, got "1Gbit/ms" (a bandwidth is per second (/s))`},
		{"1Gb/s", `expected a bandwidth such as 1Gbit/s or 125MB/s, got "1Gb/s" (unknown unit "Gb"; units are bit/s, kbit/s, Mbit/s, Gbit/s (or Mbps, Gbps), B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s and GiB/s)`},
		{"1000", `expected a bandwidth such as 1Gbit/s or 125MB/s, got "1000" (a number needs a unit)`},
		{"fast", `expected a bandwidth such as 1Gbit/s or 125MB/s, got "fast"`},
		{"1Gbps/s", `expected a bandwidth such as 1Gbit/s or 125MB/s, got "1Gbps/s" (unknown unit "Gbps"; units are bit/s, kbit/s, Mbit/s, Gbit/s (or Mbps, Gbps), B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s and GiB/s)`},
	}
	for _, c := range bad {
		got, err := ParseBandwidth(c.in)
		if err == nil || err.Error() != c.msg {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want error %s", c.in, got, err, c.msg)
		}
	}
}

func TestFormat(t *testing.T) {
	durations := map[des.Time]string{
		0: "0s", 250 * des.Millisecond: "250ms", 1500 * des.Millisecond: "1.5s", 90 * des.Minute: "1h30m", 100: "100ns",
	}
	for in, want := range durations {
		if got := FormatDuration(in); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", in, got, want)
		}
	}
	rates := map[float64]string{0: "0/s", 100: "100/s", 2.5: "2.5/s", 0.5: "30/min", 1.0 / 3600: "1/h", 999999: "999999/s", 1e6: "1e6/s", 1234567: "1234567/s",
		2.5e9: "2.5e9/s", 1e300: "1e300/s", -1e300: "-1e300/s", 1e-300: "1e-300/s", 1.5e-5: "1.5e-5/s", 0.3: "18/min", 1.0 / 7: "0.14285714285714285/s"}
	for in, want := range rates {
		if got := FormatRate(in); got != want {
			t.Errorf("FormatRate(%v) = %q, want %q", in, got, want)
		}
	}
	sizes := map[int64]string{0: "0B", 100: "100B", 32 << 10: "32KiB", 1 << 20: "1MiB", 1000: "1KB", 1e6: "1MB", 1500: "1.46KiB", 1234567: "1.18MiB", 3 << 30: "3GiB", -2048: "-2KiB",
		999 << 40: "999TiB", 1e18: "1e18B", -1e18: "-1e18B", math.MaxInt64: "9.22e18B", 1234 << 40: "1.36e15B",
		// issue 13 F19: "got 976562500000KiB" for a huge record size
		1e15: "1000TB", 2048000000: "2048MB", 390625 << 10: "400MB", 12345 << 30: "12.06TiB"}
	for in, want := range sizes {
		if got := FormatByteSize(in); got != want {
			t.Errorf("FormatByteSize(%d) = %q, want %q", in, got, want)
		}
	}
	bandwidths := map[float64]string{125e6: "1Gbit/s", 12.5e6: "100Mbit/s", 1e7: "80Mbit/s", 1 << 30: "1GiB/s", 100: "100B/s", 0: "0B/s", 1250: "10kbit/s", 1.5: "1.5B/s", 1234567.5: "1.18MiB/s",
		0.01: "0.01B/s", 1e-300: "1e-300B/s", -1e-300: "-1e-300B/s", 1.25e308: "1.25e308B/s", -1.25e308: "-1.25e308B/s", 1e15: "8000Tbit/s", 2e15: "2e15B/s"}
	for in, want := range bandwidths {
		if got := FormatBandwidth(in); got != want {
			t.Errorf("FormatBandwidth(%v) = %q, want %q", in, got, want)
		}
	}
}

// Formatting and parsing back gives the same value.
func TestFormatRoundTrip(t *testing.T) {
	for _, d := range []des.Time{0, 1, 999, 250 * des.Millisecond, 90*des.Minute + 1, des.Never} {
		if got, err := ParseDuration(FormatDuration(d)); err != nil || got != d {
			t.Errorf("duration %d: %q parses to %v, %v", d, FormatDuration(d), got, err)
		}
	}
	for _, r := range []float64{0, 100, 2.5, 0.5, 1.0 / 3600, 1e9, 0.3, 1e300, 1e-300, 1.5e-5, 1234567} {
		got, err := ParseRate(FormatRate(r))
		if err != nil || math.Abs(got-r) > 1e-12*math.Max(1, r) {
			t.Errorf("rate %v: %q parses to %v, %v", r, FormatRate(r), got, err)
		}
	}
	for _, n := range []int64{0, 1, 100, 1000, 1024, 1536, 32 << 10, 1e6, 1 << 40, 1e18, -1e18} {
		if got, err := ParseByteSize(FormatByteSize(n)); err != nil || got != n {
			t.Errorf("size %d: %q parses to %v, %v", n, FormatByteSize(n), got, err)
		}
	}
	for _, b := range []float64{125e6, 12.5e6, 1e7, 1 << 30, 100, 1250, 1.5, 1e-300, 1.25e308} {
		if got, err := ParseBandwidth(FormatBandwidth(b)); err != nil || got != b {
			t.Errorf("bandwidth %v: %q parses to %v, %v", b, FormatBandwidth(b), got, err)
		}
	}
}
