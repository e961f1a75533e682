package dedup

import (
	"math"
	"testing"
)

// TestBloomFalsePositives: the measured false-positive rate matches
// (1 − e^(−kn/m))^k within 5% for two parameter sets, and an id added is
// always found.
func TestBloomFalsePositives(t *testing.T) {
	for _, c := range []struct {
		m uint64
		k int
		n uint64
	}{{1 << 20, 7, 100000}, {1 << 18, 3, 50000}} {
		b := NewBloom(c.m, c.k)
		for id := range c.n {
			b.Add(id)
		}
		for id := range c.n {
			if !b.MayContain(id) {
				t.Fatalf("m=%d k=%d: id %d added but not found", c.m, c.k, id)
			}
		}
		const probes = 2000000
		fp := 0
		for id := uint64(1 << 40); id < 1<<40+probes; id++ {
			if b.MayContain(id) {
				fp++
			}
		}
		got, want := float64(fp)/probes, FalsePositiveRate(c.m, c.k, c.n)
		t.Logf("m=%d k=%d n=%d: false positives %.5f, closed form %.5f", c.m, c.k, c.n, got, want)
		if math.Abs(got-want)/want > 0.05 {
			t.Errorf("m=%d k=%d n=%d: false-positive rate %.5f, want %.5f within 5%%", c.m, c.k, c.n, got, want)
		}
	}
}

// TestBloomSizing: BitsFor and OptimalHashes give the textbook sizes
// (1% for 10^6 ids: 9,585,059 bits, 7 hashes).
func TestBloomSizing(t *testing.T) {
	if m := BitsFor(1000000, 0.01); m != 9585059 {
		t.Errorf("bits for 1e6 ids at 1%%: %d, want 9585059", m)
	}
	if k := OptimalHashes(9585059, 1000000); k != 7 {
		t.Errorf("hashes: %d, want 7", k)
	}
	b := NewBloom(100, 2)
	if b.Bits() != 128 || b.Bytes() != 16 {
		t.Errorf("100 bits round up to %d (%d bytes), want 128 (16)", b.Bits(), b.Bytes())
	}
	b.Add(5)
	b.Clear()
	if b.MayContain(5) || b.Added() != 0 {
		t.Error("a cleared filter still holds an id")
	}
}
