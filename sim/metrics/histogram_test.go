package metrics

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/dspalab/dspalab/sim/des"
)

// exactQuantile is the reference for Histogram.Quantile: the value of rank
// ceil(q*n), at least 1, in sorted order.
func exactQuantile(sorted []des.Time, q float64) des.Time {
	k := int(math.Ceil(q * float64(len(sorted))))
	k = max(k, 1)
	return sorted[k-1]
}

// within reports whether est is within RelativeAccuracy of exact, using exact
// integer arithmetic: 100*|est-exact| <= exact.
func within(est, exact des.Time) bool {
	d := new(big.Int).Sub(big.NewInt(int64(est)), big.NewInt(int64(exact)))
	d.Abs(d).Mul(d, big.NewInt(accPercent))
	return d.Cmp(big.NewInt(int64(exact))) <= 0
}

func TestBucketTable(t *testing.T) {
	if slotUpper[0] != 0 || slotRep[0] != 0 {
		t.Fatalf("slot 0 = (rep %d, upper %d), want (0, 0)", slotRep[0], slotUpper[0])
	}
	if slotUpper[numSlots-1] != des.Never {
		t.Fatalf("last slot ends at %d, want des.Never", slotUpper[numSlots-1])
	}
	for s := 1; s < numSlots; s++ {
		lo, hi, rep := slotUpper[s-1]+1, slotUpper[s], slotRep[s]
		if lo > hi || rep < lo || rep > hi {
			t.Fatalf("slot %d: lo %d, rep %d, hi %d out of order", s, lo, rep, hi)
		}
		// The extremes are the worst cases for every value in the bucket.
		if !within(rep, lo) || !within(rep, hi) {
			t.Fatalf("slot %d: rep %d not within 1%% of [%d, %d]", s, rep, lo, hi)
		}
		if lo < 99 && lo != hi {
			t.Fatalf("slot %d: [%d, %d] holds several values below 99 ns", s, lo, hi)
		}
		// Logarithmic: no bucket is wider than DDSketch's gamma.
		gamma := (1 + RelativeAccuracy) / (1 - RelativeAccuracy)
		if float64(hi) > float64(lo)*gamma*(1+1e-12) {
			t.Fatalf("slot %d: [%d, %d] wider than gamma", s, lo, hi)
		}
	}
}

// TestCellSlotTable checks the table init builds by one walk up the slots
// against a binary search for every cell: the slot of the cell's smallest
// value.
func TestCellSlotTable(t *testing.T) {
	for c := range cellSlot {
		if got, want := int(cellSlot[c]), searchSlot(cellLow(c)); got != want {
			t.Fatalf("cellSlot[%d] = %d, want %d (the slot of %d ns)", c, got, want, cellLow(c))
		}
	}
}

// TestSlotOf checks the table-driven slot lookup against a binary search
// over the bucket bounds: exhaustively for small values, at every cell and
// bucket boundary, and on random values of every magnitude.
func TestSlotOf(t *testing.T) {
	check := func(v des.Time) {
		t.Helper()
		if v < 0 {
			return
		}
		if got, want := slotOf(v), searchSlot(v); got != want {
			t.Fatalf("slotOf(%d) = %d, want %d", v, got, want)
		}
	}
	for v := des.Time(0); v <= 1<<20; v++ {
		check(v)
	}
	for c := 1 << cellBits; c < numCells; c++ {
		lo := cellLow(c)
		check(lo - 1)
		check(lo)
		check(lo + 1)
		// A cell must not span more than two buckets: slotOf corrects by
		// one step only.
		next := des.Never
		if c+1 < numCells {
			next = cellLow(c+1) - 1
		}
		if searchSlot(next)-searchSlot(lo) > 1 {
			t.Fatalf("cell %d [%d, %d] spans more than two buckets", c, lo, next)
		}
		check(next)
	}
	for s := range numSlots {
		check(slotUpper[s])
		if slotUpper[s] < des.Never {
			check(slotUpper[s] + 1)
		}
	}
	for e := range 63 { // both sides of every power of two, 2^53 included
		for d := des.Time(-3); d <= 3; d++ {
			check(des.Time(1)<<e + d)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		check(des.Time(r.Uint64() >> (1 + r.IntN(63))))
	}
	check(des.Never)
}

func expSample(r *rand.Rand, n int, mean float64) []des.Time {
	out := make([]des.Time, n)
	for i := range out {
		out[i] = des.Time(r.ExpFloat64() * mean)
	}
	return out
}

func TestQuantileAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	cases := []struct {
		name   string
		values []des.Time
	}{
		{"exponential 1ms", expSample(r, 1_000_000, 1e6)},
		{"exponential 40ns", expSample(r, 200_000, 40)}, // many zeros and small integers
		{"lognormal", func() []des.Time {
			out := make([]des.Time, 500_000)
			for i := range out {
				out[i] = des.Time(math.Exp(math.Log(2e5) + 1.5*r.NormFloat64()))
			}
			return out
		}()},
		{"uniform [0, 10ms)", func() []des.Time {
			out := make([]des.Time, 300_000)
			for i := range out {
				out[i] = des.Time(r.Int64N(int64(10 * des.Millisecond)))
			}
			return out
		}()},
		{"uniform [0, 1e15)", func() []des.Time {
			out := make([]des.Time, 100_000)
			for i := range out {
				out[i] = des.Time(r.Int64N(1e15))
			}
			return out
		}()},
		{"constant 12345", slices.Repeat([]des.Time{12345}, 100_000)},
	}
	qs := []float64{0.5, 0.9, 0.99, 0.999}
	for q := 0.0; q <= 1; q += 0.001 { // and a dense sweep
		qs = append(qs, q)
	}
	qs = append(qs, 0, 1)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistogram()
			sum := new(big.Int)
			for _, v := range tc.values {
				h.Add(v)
				sum.Add(sum, big.NewInt(int64(v)))
			}
			wantSum, _ := new(big.Float).SetInt(sum).Float64()
			sorted := slices.Clone(tc.values)
			slices.Sort(sorted)
			n := len(sorted)
			if h.Count() != uint64(n) {
				t.Fatalf("Count = %d, want %d", h.Count(), n)
			}
			if h.Min() != sorted[0] || h.Max() != sorted[n-1] {
				t.Fatalf("Min, Max = %d, %d, want %d, %d", h.Min(), h.Max(), sorted[0], sorted[n-1])
			}
			if h.Sum() != wantSum {
				t.Fatalf("Sum = %v, want %v (%v)", h.Sum(), wantSum, sum)
			}
			if want := wantSum / float64(n); h.Mean() != want {
				t.Fatalf("Mean = %v, want %v", h.Mean(), want)
			}
			if h.Quantile(0) != sorted[0] || h.Quantile(1) != sorted[n-1] {
				t.Fatalf("Quantile(0), Quantile(1) = %d, %d, want exact %d, %d",
					h.Quantile(0), h.Quantile(1), sorted[0], sorted[n-1])
			}
			for _, q := range qs {
				got, want := h.Quantile(q), exactQuantile(sorted, q)
				if !within(got, want) {
					t.Errorf("Quantile(%v) = %d, exact %d: relative error %.4f%% > 1%%",
						q, got, want, 100*math.Abs(float64(got-want))/float64(want))
				}
				if want < 99 && got != want {
					t.Errorf("Quantile(%v) = %d, want exact %d below 99 ns", q, got, want)
				}
			}
			for _, q := range qs[:4] {
				got, want := h.Quantile(q), exactQuantile(sorted, q)
				t.Logf("q=%v exact=%d est=%d err=%.4f%%", q, want, got,
					100*math.Abs(float64(got-want))/math.Max(1, float64(want)))
			}
		})
	}
}

// TestEveryValueSmall checks every value from 0 to 20000 ns, one at a time
// between two far-away neighbours, so that the median is the value itself
// and not Min or Max.
func TestEveryValueSmall(t *testing.T) {
	var h Histogram
	for v := des.Time(0); v <= 20000; v++ {
		h.Reset()
		h.Add(0)
		h.Add(v)
		h.Add(des.Never)
		if got := h.Quantile(0.5); !within(got, v) || (v < 99 && got != v) {
			t.Fatalf("median of {0, %d, Never} = %d", v, got)
		}
	}
}

func TestEmptyAndZeroValue(t *testing.T) {
	var h Histogram // the zero value is ready to use
	if h.Count() != 0 || h.Sum() != 0 || h.Mean() != 0 || h.Min() != 0 || h.Max() != 0 {
		t.Fatal("empty histogram reports non-zero statistics")
	}
	for _, q := range []float64{0, 0.5, 1} {
		if h.Quantile(q) != 0 {
			t.Fatalf("empty Quantile(%v) = %d, want 0", q, h.Quantile(q))
		}
	}
	h.Add(7)
	if h.Min() != 7 || h.Max() != 7 || h.Quantile(0.5) != 7 {
		t.Fatalf("after Add(7): min %d, max %d, median %d", h.Min(), h.Max(), h.Quantile(0.5))
	}
}

func TestZeroValues(t *testing.T) {
	h := NewHistogram()
	for range 1000 {
		h.Add(0)
	}
	for _, q := range []float64{0, 0.5, 0.99, 1} {
		if h.Quantile(q) != 0 {
			t.Fatalf("all zeros: Quantile(%v) = %d", q, h.Quantile(q))
		}
	}
	if h.Min() != 0 || h.Max() != 0 || h.Mean() != 0 || h.Count() != 1000 {
		t.Fatalf("all zeros: min %d max %d mean %v count %d", h.Min(), h.Max(), h.Mean(), h.Count())
	}
	// Half zeros, half 1ms: the median is 0, the 0.75-quantile is ~1ms.
	for range 1000 {
		h.Add(des.Millisecond)
	}
	if h.Quantile(0.5) != 0 {
		t.Fatalf("Quantile(0.5) = %d, want 0", h.Quantile(0.5))
	}
	if got := h.Quantile(0.75); !within(got, des.Millisecond) {
		t.Fatalf("Quantile(0.75) = %d, want ~%d", got, des.Millisecond)
	}
	if h.Mean() != 5e5 {
		t.Fatalf("Mean = %v, want 5e5", h.Mean())
	}
}

func TestHugeValues(t *testing.T) {
	h := NewHistogram()
	const big = des.Time(1e15)
	for i := range 1000 {
		h.Add(big + des.Time(i)*1e12) // 1e15 .. ~2e15 ns
	}
	if got := h.Quantile(0.5); !within(got, big+499*1e12) {
		t.Fatalf("Quantile(0.5) = %d, want ~%d", got, big+499*1e12)
	}
	if h.Min() != big || h.Max() != big+999*1e12 {
		t.Fatalf("Min, Max = %d, %d", h.Min(), h.Max())
	}
	// des.Never itself has a bucket, and the sum does not overflow int64.
	h.Reset()
	for range 4 {
		h.Add(des.Never)
	}
	h.Add(1)
	if want := 4*float64(des.Never) + 1; h.Sum() != want {
		t.Fatalf("Sum = %v, want %v", h.Sum(), want)
	}
	if h.Quantile(0.5) != des.Never || h.Quantile(0.2) != 1 {
		t.Fatalf("Quantile(0.5), Quantile(0.2) = %d, %d", h.Quantile(0.5), h.Quantile(0.2))
	}
	for _, v := range []des.Time{1e15, 1e15 + 1, 3e17, des.Never - 1, des.Never / 2} {
		if rep := slotRep[slotOf(v)]; !within(rep, v) {
			t.Fatalf("bucket of %d reports %d", v, rep)
		}
	}
}

func TestResetReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a, b := expSample(r, 10_000, 1e9), expSample(r, 10_000, 2e3)
	h := NewHistogram()
	for _, v := range a {
		h.Add(v)
	}
	h.Reset()
	if *h != (Histogram{}) {
		t.Fatal("Reset left state behind")
	}
	for _, v := range b {
		h.Add(v)
	}
	fresh := NewHistogram()
	for _, v := range b {
		fresh.Add(v)
	}
	if *h != *fresh {
		t.Fatal("reused histogram differs from a fresh one fed the same values")
	}
}

func TestMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := expSample(r, 50_000, 1e6), expSample(r, 30_000, 1e3)
	ha, hb, both := NewHistogram(), NewHistogram(), NewHistogram()
	for _, v := range a {
		ha.Add(v)
		both.Add(v)
	}
	for _, v := range b {
		hb.Add(v)
		both.Add(v)
	}
	hbBefore := *hb
	ha.Merge(hb)
	if *ha != *both {
		t.Fatal("a.Merge(b) differs from one histogram fed a then b")
	}
	if *hb != hbBefore {
		t.Fatal("Merge changed its argument")
	}

	// Merging into an empty histogram copies; merging nil or empty is a no-op.
	var e Histogram
	e.Merge(both)
	if e != *both {
		t.Fatal("empty.Merge(h) differs from h")
	}
	e.Merge(nil)
	e.Merge(NewHistogram())
	if e != *both {
		t.Fatal("Merge(nil) or Merge(empty) changed the histogram")
	}

	// Self-merge doubles every value's count.
	twice := NewHistogram()
	for range 2 {
		for _, v := range a {
			twice.Add(v)
		}
	}
	self := NewHistogram()
	for _, v := range a {
		self.Add(v)
	}
	self.Merge(self)
	if *self != *twice {
		t.Fatal("h.Merge(h) differs from adding every value twice")
	}

	// The 128-bit sum carries across Merge.
	x, y := NewHistogram(), NewHistogram()
	x.Add(des.Never)
	y.Add(des.Never)
	y.Add(des.Never)
	x.Merge(y)
	if want := 3 * float64(des.Never); x.Sum() != want || x.Count() != 3 {
		t.Fatalf("Sum, Count = %v, %d, want %v, 3", x.Sum(), x.Count(), want)
	}
}

// TestSumRounding checks the 128-bit sum and its rounding to float64 against
// math/big on sums far beyond int64.
func TestSumRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		var h Histogram
		want := new(big.Int)
		for range 1 + r.IntN(3000) {
			v := des.Time(r.Uint64() >> (1 + r.IntN(63)))
			h.Add(v)
			want.Add(want, big.NewInt(int64(v)))
		}
		w, _ := new(big.Float).SetInt(want).Float64()
		if h.Sum() != w {
			t.Fatalf("Sum = %v, want %v (%v)", h.Sum(), w, want)
		}
	}
}

func TestPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	h := NewHistogram()
	h.Add(1)
	mustPanic("Add(-1)", func() { h.Add(-1) })
	mustPanic("Quantile(-0.1)", func() { h.Quantile(-0.1) })
	mustPanic("Quantile(1.1)", func() { h.Quantile(1.1) })
	mustPanic("Quantile(NaN)", func() { h.Quantile(math.NaN()) })
}

func TestNoAllocations(t *testing.T) {
	h := NewHistogram()
	o := NewHistogram()
	o.Add(5 * des.Millisecond)
	var v des.Time
	if n := testing.AllocsPerRun(1000, func() { v = v*7 + 12345; h.Add(v & (1<<40 - 1)) }); n != 0 {
		t.Fatalf("Add allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = h.Quantile(0.99) }); n != 0 {
		t.Fatalf("Quantile allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { h.Merge(o) }); n != 0 {
		t.Fatalf("Merge allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { h.Reset() }); n != 0 {
		t.Fatalf("Reset allocates %v times per call", n)
	}
}

// TestDocumentedSize keeps the memory figure in the doc comments honest.
func TestDocumentedSize(t *testing.T) {
	if got := unsafe.Sizeof(Histogram{}); got != 16448 {
		t.Fatalf("Histogram is %d bytes; update the doc comments (16,448)", got)
	}
}

func benchValues() []des.Time {
	r := rand.New(rand.NewPCG(9, 9))
	out := make([]des.Time, 1<<12)
	for i := range out {
		out[i] = des.Time(math.Exp(math.Log(2e5) + 1.5*r.NormFloat64()))
	}
	return out
}

func BenchmarkHistogramAdd(b *testing.B) {
	vals := benchValues()
	h := NewHistogram()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h.Add(vals[i&(len(vals)-1)])
		i++
	}
}

// BenchmarkSlotOfLog measures the textbook index ceil(log_gamma(x)) with
// math.Log, for comparison with the table lookup in slotOf.
func BenchmarkSlotOfLog(b *testing.B) {
	vals := benchValues()
	inv := 1 / math.Log((1+RelativeAccuracy)/(1-RelativeAccuracy))
	sink := 0
	i := 0
	for b.Loop() {
		sink += int(math.Ceil(math.Log(float64(vals[i&(len(vals)-1)])) * inv))
		i++
	}
	_ = sink
}

func BenchmarkSlotOf(b *testing.B) {
	vals := benchValues()
	sink := 0
	i := 0
	for b.Loop() {
		sink += slotOf(vals[i&(len(vals)-1)])
		i++
	}
	_ = sink
}

func BenchmarkHistogramQuantile(b *testing.B) {
	vals := benchValues()
	h := NewHistogram()
	for _, v := range vals {
		h.Add(v)
	}
	for b.Loop() {
		_ = h.Quantile(0.99)
	}
}
