package plan

// bloomGenerations is the Bloom filters a MillWheel sink holds at once:
// the current generation and the previous one, swapped every
// id_retention (sim's dedupState, one per sink vertex).
const bloomGenerations = 2

// estimateDedup fills the Bloom filters of e: for every sink with
// dedup, bloom_bits rounded up to 64-bit words (dedup.NewBloom), in
// bytes, times bloomGenerations.
func (p *Plan) estimateDedup(e *Estimate) {
	for _, v := range p.Vertices {
		if v.Kind != Sink {
			continue
		}
		d := p.Scenario.Sinks[v.Decl].Dedup
		if d == nil {
			continue
		}
		words := (int64(max(d.BloomBits, 1)) + 63) / 64
		e.BloomBits = satAdd(e.BloomBits, satMul(words*64, bloomGenerations))
		e.BloomBytes = satAdd(e.BloomBytes, satMul(words*8, bloomGenerations))
	}
}
