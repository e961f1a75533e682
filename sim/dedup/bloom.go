// Package dedup holds the pure parts of MillWheel's exactly-once
// delivery (Akidau et al., "MillWheel: Fault-Tolerant Stream Processing at
// Internet Scale", VLDB 2013, §5.1): a receiver remembers the ids of the
// records it has seen and drops a record whose id it saw before; a Bloom
// filter of recent ids sits in front of the stable-storage lookup, so a
// record the filter has not seen ("not seen" is certain) costs no lookup,
// and only "maybe seen" ones do.
package dedup

import "math"

// Bloom is a Bloom filter over 64-bit ids (Bloom 1970): m bits, k
// probes per id by double hashing (Kirsch and Mitzenmacher 2006:
// g_i = h1 + i·h2 mod m), with h1 a SplitMix64 mix of the id and h2 a
// mix of h1. After n distinct ids its false-positive rate is about
// FalsePositiveRate(m, k, n) = (1 − e^(−kn/m))^k.
type Bloom struct {
	bits []uint64
	m    uint64
	k    int
	n    uint64 // ids added
}

// NewBloom returns an empty filter of m bits (> 0, rounded up to a
// multiple of 64) and k probes (>= 1).
func NewBloom(m uint64, k int) *Bloom {
	words := (max(m, 1) + 63) / 64
	return &Bloom{bits: make([]uint64, words), m: words * 64, k: max(k, 1)}
}

// Bits returns m, the filter's size in bits; Hashes its k.
func (b *Bloom) Bits() uint64 { return b.m }

// Hashes returns k, the probes per id.
func (b *Bloom) Hashes() int { return b.k }

// Added returns the ids added since the filter was made or cleared.
func (b *Bloom) Added() uint64 { return b.n }

// Bytes returns the filter's memory, its bits.
func (b *Bloom) Bytes() int64 { return int64(len(b.bits)) * 8 }

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// probes returns the two hashes of id: two rounds of the mix, h2 odd so
// that the k probes differ when m is a power of two.
func (b *Bloom) probes(id uint64) (h1, h2 uint64) {
	h1 = mix(id)
	return h1, mix(h1) | 1
}

// Add records id.
func (b *Bloom) Add(id uint64) {
	h1, h2 := b.probes(id)
	for i := range uint64(b.k) {
		g := (h1 + i*h2) % b.m
		b.bits[g/64] |= 1 << (g % 64)
	}
	b.n++
}

// MayContain reports whether id may have been added: false is certain,
// true may be a false positive.
func (b *Bloom) MayContain(id uint64) bool {
	h1, h2 := b.probes(id)
	for i := range uint64(b.k) {
		g := (h1 + i*h2) % b.m
		if b.bits[g/64]&(1<<(g%64)) == 0 {
			return false
		}
	}
	return true
}

// Clear empties the filter.
func (b *Bloom) Clear() {
	clear(b.bits)
	b.n = 0
}

// FalsePositiveRate is the probability that a filter of m bits and k
// probes holding n distinct ids answers "maybe" for an id it never saw:
// (1 − e^(−kn/m))^k.
func FalsePositiveRate(m uint64, k int, n uint64) float64 {
	return math.Pow(1-math.Exp(-float64(k)*float64(n)/float64(m)), float64(k))
}

// OptimalHashes is the k that minimises the false-positive rate of m bits
// for n ids: round(m/n · ln 2), at least 1.
func OptimalHashes(m, n uint64) int {
	if n == 0 {
		return 1
	}
	return max(1, int(math.Round(float64(m)/float64(n)*math.Ln2)))
}

// BitsFor is the m that gives false-positive rate p (0 < p < 1) for n ids
// with the optimal k: −n·ln p / (ln 2)², rounded up.
func BitsFor(n uint64, p float64) uint64 {
	return uint64(math.Ceil(-float64(n) * math.Log(p) / (math.Ln2 * math.Ln2)))
}
