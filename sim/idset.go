package sim

import (
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// idSet is the set of record ids a sink has made visible. Records reach a
// sink nearly in offset order, so for each source subtask the offsets
// that are all present from 0 up are a counter (the prefix), those a
// little ahead of it bits of a window that slides with the prefix, and
// the rare ones further ahead a compressed bitmap (roaring): memory stays
// flat however many records pass, and an add costs a few word operations.
type idSet struct {
	bm   *roaring64.Bitmap
	subs []idWindow // per source seq
}

// windowBits is the reach of an idWindow past its prefix (8 KiB of bits).
const windowBits = 1 << 16

// idWindow is one source subtask's part of an idSet: offsets [0, prefix)
// are all present; bit o%windowBits of bits says whether offset o in
// [prefix, prefix+windowBits) is (the bits are made on first use).
type idWindow struct {
	prefix uint64
	bits   *[windowBits / 64]uint64
}

func newIDSet(sources int) *idSet {
	return &idSet{bm: roaring64.New(), subs: make([]idWindow, sources)}
}

func (w *idWindow) bit(off uint64) (word int, mask uint64) {
	o := off % windowBits
	return int(o / 64), 1 << (o % 64)
}

// Contains reports whether id is in the set.
func (s *idSet) Contains(id uint64) bool {
	seq, off := originSeq(id), originOffset(id)
	if seq < len(s.subs) {
		w := &s.subs[seq]
		switch {
		case off < w.prefix:
			return true
		case off < w.prefix+windowBits:
			if w.bits == nil {
				return false
			}
			i, m := w.bit(off)
			return w.bits[i]&m != 0
		}
	}
	return s.bm.Contains(id)
}

// CheckedAdd adds id and reports whether it was new.
func (s *idSet) CheckedAdd(id uint64) bool { return s.addNext(id) || s.add(id) }

// addNext adds id when it is the next offset of its source subtask's
// prefix and nothing is ahead of that (the common case, small enough to
// be inlined into a sink's write), and reports whether it did; when it
// did not, the set is unchanged and add decides.
func (s *idSet) addNext(id uint64) bool {
	if seq := originSeq(id); seq < len(s.subs) {
		if w := &s.subs[seq]; originOffset(id) == w.prefix && w.bits == nil && s.bm.IsEmpty() {
			w.prefix++ // in order, nothing ahead of it
			return true
		}
	}
	return false
}

// add is CheckedAdd of an id that addNext did not add.
func (s *idSet) add(id uint64) bool {
	seq, off := originSeq(id), originOffset(id)
	if seq >= len(s.subs) {
		return s.bm.CheckedAdd(id)
	}
	w := &s.subs[seq]
	if off-w.prefix >= windowBits { // behind the prefix (off-prefix wraps) or beyond the window
		if off < w.prefix {
			return false
		}
		return s.bm.CheckedAdd(id)
	}
	if w.bits == nil {
		w.makeBits()
		return s.add(id) // nothing of this call kept across makeBits'
	}
	i, m := w.bit(off)
	if w.bits[i]&m != 0 {
		return false
	}
	if off != w.prefix {
		w.bits[i] |= m // ahead of the prefix, which stays
		return true
	}
	// off completes the prefix: move it over off and the offsets present
	// after it
	w.prefix++
	if s.bm.IsEmpty() {
		w.skipPresent()
		return true
	}
	// taking into the window the ones the bitmap held beyond it
	s.pullFar(seq, w)
	for {
		i, m := w.bit(w.prefix)
		if w.bits[i]&m == 0 {
			break
		}
		w.bits[i] &^= m
		w.prefix++
		s.pullFar(seq, w)
	}
	return true
}

// makeBits makes w's bits, out of line, once: add's common path keeps its
// registers.
//
//go:noinline
func (w *idWindow) makeBits() { w.bits = new([windowBits / 64]uint64) }

// pullFar moves the offset that has just come into the reach of w (its
// last, prefix+windowBits-1) from the bitmap into w's bits, if the bitmap
// holds it.
func (s *idSet) pullFar(seq int, w *idWindow) {
	if far := sourceID(seq, w.prefix+windowBits-1); !s.bm.IsEmpty() && s.bm.Contains(far) {
		s.bm.Remove(far)
		j, n := w.bit(w.prefix + windowBits - 1)
		w.bits[j] |= n
	}
}

// skipPresent moves w's prefix over the offsets present from it on,
// clearing their bits, a word at a time (the bitmap holds none of w's
// offsets: nothing comes into the window from there).
func (w *idWindow) skipPresent() {
	for {
		o := w.prefix % windowBits
		i, sh := int(o/64), o%64
		run := uint64(bits.TrailingZeros64(^(w.bits[i] >> sh))) // the bits set from sh up (at most 64-sh)
		if run == 0 {
			return
		}
		w.bits[i] &^= ^uint64(0) >> (64 - run) << sh
		w.prefix += run
		if sh+run < 64 {
			return
		}
	}
}

// countRange returns how many of the source ids [lo, hi) of one source
// subtask (lo and hi from sourceID with the same seq) are in the set.
func (s *idSet) countRange(lo, hi uint64) uint64 {
	if hi <= lo {
		return 0
	}
	seq := originSeq(lo)
	var n uint64
	if seq < len(s.subs) {
		w := &s.subs[seq]
		p := sourceID(seq, w.prefix)
		if p > lo {
			n += min(p, hi) - lo
			lo = min(p, hi)
		}
		// the window
		end := min(hi, sourceID(seq, w.prefix+windowBits))
		if w.bits != nil {
			for id := lo; id < end; id++ {
				i, m := w.bit(originOffset(id))
				if w.bits[i]&m != 0 {
					n++
				}
			}
		}
		lo = max(lo, end)
	}
	if hi > lo {
		n += s.bm.Rank(hi-1) - rankBelow(s.bm, lo)
	}
	return n
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
	copies  map[uint32]*idSet
}

func newVisibleSet(sources int) *visibleSet {
	return &visibleSet{sources: sources, zero: newIDSet(sources), copies: map[uint32]*idSet{}}
}

func (v *visibleSet) class(copy uint32) *idSet {
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
func (v *visibleSet) CheckedAdd(copy uint32, origin uint64) bool {
	if copy == 0 {
		return v.zero.CheckedAdd(origin)
	}
	return v.class(copy).CheckedAdd(origin)
}

// Contains reports whether the record (copy, origin) is visible.
func (v *visibleSet) Contains(copy uint32, origin uint64) bool {
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
