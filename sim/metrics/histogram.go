package metrics

import (
	"math"
	"math/bits"
	"sort"

	"github.com/dspalab/dspalab/sim/des"
)

// RelativeAccuracy is the bound on the relative error of Histogram.Quantile,
// as a fraction (0.01 = 1%): an estimate e of a true quantile x > 0 satisfies
// |e-x| <= RelativeAccuracy*x, and an estimate of 0 ns is exact.
const RelativeAccuracy = 0.01

// Bucket layout (DDSketch-style, snapped to integer nanoseconds).
//
// DDSketch with relative accuracy a uses gamma = (1+a)/(1-a), puts x into
// bucket i = ceil(log_gamma(x)), i.e. (gamma^(i-1), gamma^i], and reports
// the representative 2*gamma^i/(gamma+1) = gamma^i*(1-a), which lies within
// a relative distance a of every real number in the bucket. Quantile returns
// an integer des.Time, though, and rounding that representative to a whole
// nanosecond breaks the bound for small values: the literal grid puts 58 and
// 59 ns in one bucket, and no integer is within 1% of both (the worst case
// is 1.7%; 462 of its buckets exceed 1% once rounded).
//
// So the grid here is built in integers with the same gamma: a bucket that
// starts at lo has the integer representative rep = floor(lo*(1+a)) and ends
// at hi = floor(rep/(1-a)); then every integer x in [lo, hi] satisfies
// |rep-x| <= a*x exactly, and hi/lo -> gamma as for DDSketch. Below 99 ns
// each bucket holds a single value (exact); above, bucket widths grow
// geometrically by gamma ~ 1.0202. Slot 0 holds the value 0. The last bucket
// ends at math.MaxInt64 (des.Never), so every non-negative des.Time has a
// bucket and nothing is clamped: 1 ns .. 292 years in numSlots slots.
const (
	accPercent = 100 // 1/RelativeAccuracy, for exact integer arithmetic

	// numSlots is the number of buckets, the zero slot included. init
	// checks that the construction above yields exactly this many.
	numSlots = 2051

	// The slot of x is found without a logarithm: x's binary exponent and
	// the cellBits bits below its leading one select a cell, a precomputed
	// table gives the slot of the cell's smallest value, and one comparison
	// with that slot's upper bound corrects it. A cell is at most 1/64 of
	// an octave wide (a relative width under 1.6%), narrower than a bucket
	// (about 2%), so it meets at most two buckets; TestSlotOf checks every
	// cell.
	cellBits = 6
	numCells = 64 << cellBits // exponent+1 in [0, 63] times mantissa cells
)

var (
	// slotUpper[s] is the largest value, in ns, that falls in slot s.
	slotUpper [numSlots]des.Time
	// slotRep[s] is the value, in ns, that Quantile reports for slot s.
	slotRep [numSlots]des.Time
	// cellSlot[c] is the slot of the smallest value in cell c.
	cellSlot [numCells]uint16
)

func init() {
	// Slot 0: exactly 0 ns.
	n := 1
	for lo := uint64(1); ; n++ {
		if n >= numSlots {
			panic("metrics: histogram bucket table larger than numSlots")
		}
		// uint64 cannot overflow here: lo <= 2^63, so rep and hi < 1.03*2^63.
		rep := lo + lo/accPercent
		hi := rep + rep/(accPercent-1)
		rep = min(rep, math.MaxInt64)
		hi = min(hi, math.MaxInt64)
		slotRep[n] = des.Time(rep)
		slotUpper[n] = des.Time(hi)
		if hi == math.MaxInt64 {
			break
		}
		lo = hi + 1
	}
	if n != numSlots-1 {
		panic("metrics: histogram bucket table smaller than numSlots")
	}
	// cellLow grows with c, so the slots of the cells' smallest values
	// (searchSlot's) come from one walk up the slots, not a binary search
	// a cell: init is part of every process's start-up
	s := 0
	for c := range cellSlot {
		for v := cellLow(c); slotUpper[s] < v; {
			s++
		}
		cellSlot[c] = uint16(s)
	}
}

// cellLow returns the smallest value, in ns, whose cell is c (for the few
// cells below 64 ns that no value maps to, some value near them); it does
// not decrease as c grows.
func cellLow(c int) des.Time {
	e1, m := c>>cellBits, uint64(c&(1<<cellBits-1))
	if e1 == 0 {
		return 0
	}
	e := e1 - 1 // binary exponent: the value is in [2^e, 2^(e+1))
	top := uint64(1)<<cellBits | m
	if e >= cellBits {
		return des.Time(top << (e - cellBits))
	}
	return des.Time(top >> (cellBits - e))
}

// searchSlot returns the slot of v by binary search; it defines the slot
// that slotOf computes quickly.
func searchSlot(v des.Time) int {
	return sort.Search(numSlots, func(s int) bool { return slotUpper[s] >= v })
}

// slotOf returns the slot of v >= 0 in O(1), without a logarithm, and
// without a call or a branch but one (small enough to be inlined into Add).
func slotOf(v des.Time) int {
	x := uint64(v)
	// float64(x) is exact below 2^53, so its exponent field is e+1023
	// and its mantissa's top bits are x's bits below the leading one;
	// from 2^53 on, x>>11 (>= 2^42, exact) has the same mantissa and an
	// exponent 11 smaller, added back. This is faster than
	// bits.LeadingZeros64, whose BSR instruction (without GOAMD64=v3) has
	// a false dependency on its output register. x == 0 has all bits 0
	// and lands in cell 0. The cell is (binary exponent + 1) << cellBits
	// | top mantissa bits.
	var sh uint64
	if x >= 1<<53 {
		sh = 11
	}
	c := math.Float64bits(float64(int64(x>>sh)))>>(52-cellBits) + sh<<cellBits // int64: a signed conversion, one instruction
	c = max(c, 1022<<cellBits) - 1022<<cellBits
	s := int(cellSlot[c&(numCells-1)])
	if v > slotUpper[s] {
		s++
	}
	return s
}

// Histogram is a streaming histogram of durations in simulated nanoseconds
// (des.Time >= 0). It keeps count, exact sum, exact minimum and maximum, and
// a count per logarithmic bucket, from which Quantile estimates any quantile
// within RelativeAccuracy (1%) relative error, whatever the number of values
// or their distribution.
//
// Memory is constant: the buckets are a fixed array inside the struct, 2051
// uint64 counters covering every non-negative des.Time (0 ns and 1 ns up to
// des.Never, about 292 years), so a Histogram is 16,448 bytes and Add never
// allocates. The zero value is an empty histogram ready to use; NewHistogram
// returns one on the heap. A Histogram is a plain value: copying it copies
// its contents, and == compares contents.
//
// A Histogram is not safe for concurrent use.
type Histogram struct {
	n            uint64   // number of values added
	sumLo, sumHi uint64   // exact 128-bit sum of the values, in ns
	min, max     des.Time // exact extremes, in ns; 0 while n == 0
	counts       [numSlots]uint64
}

// NewHistogram returns an empty Histogram (16,448 bytes, allocated once).
func NewHistogram() *Histogram { return new(Histogram) }

// Add records one value v, in simulated nanoseconds. It takes constant time
// (no logarithm, no allocation). v must be >= 0; Add panics on a negative
// value, which is always a bug in the caller (a latency cannot be negative).
func (h *Histogram) Add(v des.Time) {
	if v < 0 {
		panic("metrics: Histogram.Add of a negative duration")
	}
	// the extremes change rarely: a branch each, taken almost never,
	// costs less than conditional moves and stores
	if v < h.min || h.n == 0 {
		h.min = v
	}
	if v > h.max { // max is 0 while empty, and v >= 0
		h.max = v
	}
	h.n++
	var carry uint64
	h.sumLo, carry = bits.Add64(h.sumLo, uint64(v), 0)
	h.sumHi += carry
	h.counts[slotOf(v)]++
}

// Count returns the number of values added since creation or the last Reset.
func (h *Histogram) Count() uint64 { return h.n }

// Sum returns the sum of the values added, in nanoseconds. The sum is kept
// exactly (128-bit integer, so it cannot overflow); the result is exact while
// it is below 2^53 ns (about 104 days) and correctly rounded to float64 above.
func (h *Histogram) Sum() float64 {
	if h.sumHi == 0 {
		return float64(h.sumLo)
	}
	// Keep the top 64 bits, folding the rest into a sticky low bit, so the
	// single conversion below rounds the 128-bit sum correctly.
	lz := uint(bits.LeadingZeros64(h.sumHi))
	top := h.sumHi<<lz | h.sumLo>>(64-lz)
	if h.sumLo<<lz != 0 {
		top |= 1
	}
	return math.Ldexp(float64(top), int(64-lz))
}

// Mean returns the arithmetic mean of the values added, in nanoseconds,
// computed from the exact sum and count (not from the buckets); 0 if the
// histogram is empty.
func (h *Histogram) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.Sum() / float64(h.n)
}

// Min returns the smallest value added, in nanoseconds, exactly; 0 if the
// histogram is empty.
func (h *Histogram) Min() des.Time { return h.min }

// Max returns the largest value added, in nanoseconds, exactly; 0 if the
// histogram is empty.
func (h *Histogram) Max() des.Time { return h.max }

// Quantile returns an estimate, in nanoseconds, of the q-quantile of the
// values added, for q in [0, 1]. The true q-quantile is the value of rank
// k = ceil(q*n) in ascending order (rank 1 is the smallest, n = Count()),
// with k at least 1; so q = 0 returns Min and q = 1 returns Max, both
// exactly, as does any q whose rank is 1 or n. Otherwise the estimate e of
// the true value x satisfies |e-x| <= RelativeAccuracy*x (1%), and e = x
// when x < 99 ns; e always lies in [Min, Max].
//
// Quantile returns 0 for an empty histogram, does not allocate, and takes
// time linear in the number of buckets between Min and Max (at most 2051).
// It panics if q is NaN or outside [0, 1].
func (h *Histogram) Quantile(q float64) des.Time {
	if !(q >= 0 && q <= 1) {
		panic("metrics: Histogram.Quantile with q outside [0, 1]")
	}
	if h.n == 0 {
		return 0
	}
	k := uint64(math.Ceil(q * float64(h.n)))
	if k <= 1 {
		return h.min
	}
	if k >= h.n {
		return h.max
	}
	lo, hi := slotOf(h.min), slotOf(h.max)
	var cum uint64
	for s, c := range h.counts[lo : hi+1] {
		cum += c
		if cum >= k {
			return min(max(slotRep[lo+s], h.min), h.max)
		}
	}
	return h.max // unreachable: the counts between lo and hi sum to n
}

// Reset empties the histogram for reuse without allocating. It clears only
// the buckets between those of Min and Max, the only ones that can be
// non-empty, so resetting a histogram of similar values is cheap.
func (h *Histogram) Reset() {
	if h.n != 0 {
		clear(h.counts[slotOf(h.min) : slotOf(h.max)+1])
	}
	h.n, h.sumLo, h.sumHi, h.min, h.max = 0, 0, 0, 0, 0
}

// Merge adds every value recorded in o to h, as if each had been passed to
// h.Add; o is unchanged (unless o == h, which doubles h). Merging is exact:
// the result equals, bucket for bucket, one histogram fed both streams. A nil
// or empty o is a no-op. Merge does not allocate.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.n == 0 {
		return
	}
	lo, hi := slotOf(o.min), slotOf(o.max)
	dst := h.counts[lo : hi+1]
	for s, c := range o.counts[lo : hi+1] {
		dst[s] += c
	}
	if h.n == 0 {
		h.min, h.max = o.min, o.max
	} else {
		h.min = min(h.min, o.min)
		h.max = max(h.max, o.max)
	}
	h.n += o.n
	var carry uint64
	h.sumLo, carry = bits.Add64(h.sumLo, o.sumLo, 0)
	h.sumHi += o.sumHi + carry
}
