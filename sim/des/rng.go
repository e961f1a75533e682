package des

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a random stream seeded by (seed, name): the scenario seed
// and the name of the component that draws from it (e.g. "source/sensors/0").
// Components draw from their own streams, so adding a component does not
// change the draws of another, and the same (seed, name) always gives the
// same sequence on every platform (PCG from math/rand/v2).
func Stream(seed uint64, name string) *rand.Rand {
	return rand.New(StreamPCG(seed, name))
}

// StreamPCG returns the generator behind Stream(seed, name). Its state is
// a plain value: copying *p saves the stream's position and assigning the
// copy back rewinds it (a source rewinding to a checkpoint does so).
func StreamPCG(seed uint64, name string) *rand.PCG {
	return rand.NewPCG(streamSeeds(seed, name))
}

// StreamRand returns the stream Stream(seed, name) as a Rand: the same
// draws, by direct calls (the hot paths draw from it: service times,
// arrival gaps, keys).
func StreamRand(seed uint64, name string) *Rand {
	return NewRand(streamSeeds(seed, name))
}

// streamSeeds are the PCG seeds of the stream (seed, name).
func streamSeeds(seed uint64, name string) (uint64, uint64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	n := h.Sum64()
	return splitmix(seed ^ 0x9e3779b97f4a7c15), splitmix(n ^ seed)
}

// splitmix is the SplitMix64 finaliser; it spreads nearby seeds apart.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
