// Copyright 2009, 2023 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.
//
// Rand copies its generator and its algorithms from Go's math/rand/v2
// (src/math/rand/v2/pcg.go, rand.go, exp.go and normal.go, Go 1.26),
// so that it draws exactly the values rand.New(rand.NewPCG(a, b)) draws.

package des

import (
	"math"
	"math/bits"
)

// Rand is a random stream: the PCG generator of math/rand/v2 (128-bit LCG
// state, DXSM output; src/math/rand/v2/pcg.go) with the methods of
// rand.Rand the simulator draws with (src/math/rand/v2/rand.go, exp.go,
// normal.go), copied so that, for the same seeds, NewRand(a, b) yields
// exactly the values rand.New(rand.NewPCG(a, b)) yields, method for method.
// It is a concrete type so that the draws on the hot path are direct calls
// (Uint64 is inlined) rather than calls through the rand.Source interface.
//
// Its state is a plain value: copying *r saves the stream's position and
// assigning the copy back rewinds it (a source rewinding to a checkpoint
// does so).
type Rand struct {
	hi, lo uint64
}

// NewRand returns the stream of rand.New(rand.NewPCG(seed1, seed2)).
func NewRand(seed1, seed2 uint64) *Rand { return &Rand{seed1, seed2} }

// Uint64 returns a uniformly distributed uint64 (PCG.Uint64 of
// math/rand/v2: state = state*mul + inc, then DXSM "double xorshift
// multiply" of the new state).
func (r *Rand) Uint64() uint64 {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	hi, lo := bits.Mul64(r.lo, mulLo)
	hi += r.hi*mulLo + r.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	r.lo, r.hi = lo, hi
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// Float64 returns a uniform float64 in [0, 1) (Rand.Float64 of
// math/rand/v2).
func (r *Rand) Float64() float64 {
	// There are exactly 1<<53 float64s in [0,1). Use Intn(1<<53) / (1<<53).
	return float64(r.Uint64()<<11>>11) / (1 << 53)
}

// IntN returns a uniform int in [0, n); it panics if n <= 0 (Rand.IntN
// of math/rand/v2, its 64-bit algorithm, which math/rand/v2 keeps on
// 32-bit platforms too).
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		panic("invalid argument to IntN")
	}
	return int(r.uint64n(uint64(n)))
}

// uint64n is Rand.uint64n of math/rand/v2: Lemire's multiply-and-reject
// (the rejection, of the products below 2⁶⁴ mod n, is rare). It calls
// nothing, so it needs no stack frame.
func (r *Rand) uint64n(n uint64) uint64 {
	x := r.Uint64()   // the first draw of both cases (one inlined Uint64)
	if n&(n-1) == 0 { // n is power of two, can mask
		return x & (n - 1)
	}
	hi, lo := bits.Mul64(x, n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// ExpFloat64 returns an exponentially distributed float64 in
// (0, +math.MaxFloat64] of rate 1 (Rand.ExpFloat64 of math/rand/v2: the
// ziggurat of Marsaglia & Tsang, "The Ziggurat Method for Generating
// Random Variables", 2000). The common case is here; the rest, in expSlow.
func (r *Rand) ExpFloat64() float64 {
	u := r.Uint64()
	j := uint32(u)
	i := uint8(u >> 32)
	if j < expK[i] {
		return float64(j) * float64(expW[i])
	}
	return r.expSlow(u)
}

// expSlow is ExpFloat64's loop from a first draw u that fell outside its
// strip's rectangle.
func (r *Rand) expSlow(u uint64) float64 {
	const re = 7.69711747013104972
	for {
		j := uint32(u)
		i := uint8(u >> 32)
		x := float64(j) * float64(expW[i])
		if j < expK[i] {
			return x
		}
		if i == 0 {
			return re - math.Log(r.Float64())
		}
		if expF[i]+float32(r.Float64())*(expF[i-1]-expF[i]) < float32(math.Exp(-x)) {
			return x
		}
		u = r.Uint64()
	}
}

// NormFloat64 returns a standard normal float64 (mean 0, stddev 1) in
// [-math.MaxFloat64, +math.MaxFloat64] (Rand.NormFloat64 of math/rand/v2,
// the same ziggurat).
func (r *Rand) NormFloat64() float64 {
	const rn = 3.442619855899
	for {
		u := r.Uint64()
		j := int32(u) // Possibly negative
		i := u >> 32 & 0x7F
		x := float64(j) * float64(normW[i])
		if absInt32(j) < normK[i] {
			// This case should be hit better than 99% of the time.
			return x
		}

		if i == 0 {
			// This extra work is only required for the base strip.
			for {
				x = -math.Log(r.Float64()) * (1.0 / rn)
				y := -math.Log(r.Float64())
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return rn + x
			}
			return -rn - x
		}
		if normF[i]+float32(r.Float64())*(normF[i-1]-normF[i]) < float32(math.Exp(-.5*x*x)) {
			return x
		}
	}
}

func absInt32(i int32) uint32 {
	if i < 0 {
		return uint32(-i)
	}
	return uint32(i)
}
