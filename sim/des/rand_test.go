package des

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randSeeds are the seed pairs Rand is checked against math/rand/v2 on:
// zero, small, all-ones and Stream-like (splitmix-spread) seeds.
var randSeeds = [][2]uint64{
	{0, 0},
	{1, 2},
	{math.MaxUint64, math.MaxUint64},
	{splitmix(42 ^ 0x9e3779b97f4a7c15), splitmix(7 ^ 42)},
	{0x853c49e6748fea9b, 0xda3e39cb94b95bdb},
}

const randDraws = 1 << 21 // draws of each method per seed

// sameDraws checks that want (math/rand/v2) and got (Rand) draw the same
// float64 values bit for bit, and leave their generators in the same state.
func sameDraws(t *testing.T, name string, want func(*rand.Rand) float64, got func(*Rand) float64) {
	t.Helper()
	for _, s := range randSeeds {
		std, r := rand.New(rand.NewPCG(s[0], s[1])), NewRand(s[0], s[1])
		for i := range randDraws {
			w, g := want(std), got(r)
			if math.Float64bits(w) != math.Float64bits(g) {
				t.Fatalf("%s, seeds %#x: draw %d is %v, math/rand/v2 draws %v", name, s, i, g, w)
			}
		}
		if w, g := std.Uint64(), r.Uint64(); w != g {
			t.Fatalf("%s, seeds %#x: after %d draws the streams part: next Uint64 %#x, math/rand/v2 %#x", name, s, randDraws, g, w)
		}
	}
}

func TestRandUint64AgainstMathRand(t *testing.T) {
	sameDraws(t, "Uint64",
		func(r *rand.Rand) float64 { return math.Float64frombits(r.Uint64()) },
		func(r *Rand) float64 { return math.Float64frombits(r.Uint64()) })
}

func TestRandFloat64AgainstMathRand(t *testing.T) {
	sameDraws(t, "Float64", (*rand.Rand).Float64, (*Rand).Float64)
}

func TestRandExpFloat64AgainstMathRand(t *testing.T) {
	sameDraws(t, "ExpFloat64", (*rand.Rand).ExpFloat64, (*Rand).ExpFloat64)
}

func TestRandNormFloat64AgainstMathRand(t *testing.T) {
	sameDraws(t, "NormFloat64", (*rand.Rand).NormFloat64, (*Rand).NormFloat64)
}

// TestRandIntNAgainstMathRand covers the powers of two (masked), small
// counts, and counts near 2⁶² and 2⁶³ where uint64n rejects often.
func TestRandIntNAgainstMathRand(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 10, 64, 1000, 1 << 20, 1<<31 - 1, 1<<32 + 1, 1<<62 + 1, 3 << 61, math.MaxInt64} {
		sameDraws(t, "IntN",
			func(r *rand.Rand) float64 { return float64(r.IntN(n)) },
			func(r *Rand) float64 { return float64(r.IntN(n)) })
	}
}

// TestRandMixedAgainstMathRand interleaves the methods as the simulator
// does (one stream drawing exponentials, uniforms, normals and keys).
func TestRandMixedAgainstMathRand(t *testing.T) {
	sameDraws(t, "mixed",
		func(r *rand.Rand) float64 {
			switch r.IntN(5) {
			case 0:
				return r.ExpFloat64()
			case 1:
				return r.Float64()
			case 2:
				return r.NormFloat64()
			case 3:
				return float64(r.IntN(1<<62 + 1))
			}
			return float64(r.IntN(100))
		},
		func(r *Rand) float64 {
			switch r.IntN(5) {
			case 0:
				return r.ExpFloat64()
			case 1:
				return r.Float64()
			case 2:
				return r.NormFloat64()
			case 3:
				return float64(r.IntN(1<<62 + 1))
			}
			return float64(r.IntN(100))
		})
}

// TestRandCopyRewinds: assigning a saved copy back replays the same draws.
func TestRandCopyRewinds(t *testing.T) {
	r := StreamRand(3, "source/in/0/keys")
	r.Uint64()
	saved := *r
	var first [100]float64
	for i := range first {
		first[i] = r.ExpFloat64()
	}
	*r = saved
	for i := range first {
		if g := r.ExpFloat64(); g != first[i] {
			t.Fatalf("draw %d after rewinding is %v, first drawn %v", i, g, first[i])
		}
	}
}

// TestStreamRandIsStream: StreamRand(seed, name) draws what Stream(seed,
// name) draws.
func TestStreamRandIsStream(t *testing.T) {
	for _, name := range []string{"", "source/in/0/arrivals", "map/a/3/service"} {
		std, r := Stream(11, name), StreamRand(11, name)
		for i := range 1000 {
			if w, g := std.ExpFloat64(), r.ExpFloat64(); w != g {
				t.Fatalf("%q: draw %d is %v, Stream draws %v", name, i, g, w)
			}
		}
	}
}

func TestRandIntNPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("IntN(0) did not panic")
		}
	}()
	NewRand(1, 2).IntN(0)
}
