package plan

import (
	"fmt"
	"testing"
)

// TestBloomEstimate: a MillWheel sink holds two generations of its Bloom
// filter, bloom_bits rounded up to 64-bit words (dedup.NewBloom), one
// pair per sink vertex whatever its parallelism: 2^31 − 1 bits take
// 2 x 256MiB = 536,870,912 bytes; 100 bits two words each, 32 bytes.
func TestBloomEstimate(t *testing.T) {
	for _, c := range []struct {
		bits, parallelism int
		wantBits, want    int64
	}{
		{2147483647, 8, 2 << 31, 2 * 256 << 20},
		{100, 1, 2 * 128, 2 * 16},
	} {
		sc := parse(t, fmt.Sprintf(`duration: 10s
workers: {count: 2}
sources:
  - name: src
    arrival: {process: constant, rate: 100/s}
sinks:
  - name: plain
    input: src
  - name: mw
    input: src
    parallelism: %d
    delivery: at-least-once
    dedup: {bloom_bits: %d}
`, c.parallelism, c.bits))
		p, err := Compile(sc)
		if err != nil {
			t.Fatal(err)
		}
		e := p.Estimate(nil)
		if e.BloomBits != c.wantBits || e.BloomBytes != c.want {
			t.Errorf("bloom_bits %d: %d bits, %d bytes; want %d, %d", c.bits, e.BloomBits, e.BloomBytes, c.wantBits, c.want)
		}
		if e.Memory < c.want {
			t.Errorf("bloom_bits %d: memory %d leaves out the filters' %d", c.bits, e.Memory, c.want)
		}
	}
}
