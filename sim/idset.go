package sim

import "github.com/RoaringBitmap/roaring/v2/roaring64"

// idSet is the set of record ids a sink has made visible. Ids are kept in
// a compressed bitmap (roaring), and the offsets of each source subtask
// that are all present from 0 up are folded into a counter: records reach
// a sink nearly in offset order, so the bitmap holds only the ragged edge
// and memory stays flat however many records pass.
type idSet struct {
	bm     *roaring64.Bitmap
	prefix []uint64 // per source seq: offsets [0, prefix) are all present
	adds   int
}

func newIDSet(sources int) *idSet {
	return &idSet{bm: roaring64.New(), prefix: make([]uint64, sources)}
}

// inPrefix reports whether id is a source record id folded into a prefix.
func (s *idSet) inPrefix(id uint64) bool {
	if id&derivedBit != 0 {
		return false
	}
	seq := originSeq(id)
	return seq < len(s.prefix) && originOffset(id) < s.prefix[seq]
}

// Contains reports whether id is in the set.
func (s *idSet) Contains(id uint64) bool { return s.inPrefix(id) || s.bm.Contains(id) }

// CheckedAdd adds id and reports whether it was new.
func (s *idSet) CheckedAdd(id uint64) bool {
	if s.inPrefix(id) {
		return false
	}
	if !s.bm.CheckedAdd(id) {
		return false
	}
	if s.adds++; s.adds&0xffff == 0 {
		s.compact()
	}
	return true
}

// countRange returns how many of the source ids [lo, hi) of one source
// subtask (lo and hi from sourceID with the same seq) are in the set.
func (s *idSet) countRange(lo, hi uint64) uint64 {
	if hi <= lo {
		return 0
	}
	seq := originSeq(lo)
	var n uint64
	if seq < len(s.prefix) {
		p := sourceID(seq, s.prefix[seq])
		if p > lo {
			n += min(p, hi) - lo
			lo = min(p, hi)
		}
	}
	if hi > lo {
		n += s.bm.Rank(hi-1) - rankBelow(s.bm, lo)
	}
	return n
}

// compact folds the complete runs of offsets at the start of each source
// subtask's range into its prefix.
func (s *idSet) compact() {
	for seq := range s.prefix {
		base := sourceID(seq, s.prefix[seq])
		// the longest k with [base, base+k) all present, by binary search
		// on the count of present ids
		present := func(k uint64) bool { return s.bm.Rank(base+k-1)-rankBelow(s.bm, base) == k }
		if !s.bm.Contains(base) {
			continue
		}
		lo, hi := uint64(1), uint64(1)
		for base+hi*2 <= sourceID(seq, offsetMask) && present(hi*2) {
			hi *= 2
		}
		lo, hi = hi, hi*2 // present(lo), maybe not present(hi)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if present(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		s.bm.RemoveRange(base, base+lo)
		s.prefix[seq] += lo
	}
}

// rankBelow returns how many ids below x the bitmap holds.
func rankBelow(b *roaring64.Bitmap, x uint64) uint64 {
	if x == 0 {
		return 0
	}
	return b.Rank(x - 1)
}

// visibleSet is what a sink has made visible: for each copy class (0 for
// records one to one with their source record), the ids of their source
// records, each class in an idSet of its own so that its ids stay dense.
type visibleSet struct {
	sources int
	zero    *idSet
	copies  map[uint64]*idSet
}

func newVisibleSet(sources int) *visibleSet {
	return &visibleSet{sources: sources, zero: newIDSet(sources), copies: map[uint64]*idSet{}}
}

func (v *visibleSet) class(copy uint64) *idSet {
	if copy == 0 {
		return v.zero
	}
	s := v.copies[copy]
	if s == nil {
		s = newIDSet(v.sources)
		v.copies[copy] = s
	}
	return s
}

// CheckedAdd adds the record (copy, origin) and reports whether it was new.
func (v *visibleSet) CheckedAdd(copy, origin uint64) bool {
	return v.class(copy).CheckedAdd(origin)
}

// Contains reports whether the record (copy, origin) is visible.
func (v *visibleSet) Contains(copy, origin uint64) bool {
	if copy == 0 {
		return v.zero.Contains(origin)
	}
	s := v.copies[copy]
	return s != nil && s.Contains(origin)
}

// countRange counts the visible records, of every copy class, whose
// source ids are in [lo, hi) of one source subtask.
func (v *visibleSet) countRange(lo, hi uint64) uint64 {
	n := v.zero.countRange(lo, hi)
	for _, s := range v.copies {
		n += s.countRange(lo, hi)
	}
	return n
}
