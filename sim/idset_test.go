package sim

import (
	"math/rand/v2"
	"testing"
)

// idSet answers as a plain set does while it folds complete runs of
// offsets into prefixes: ids added nearly in order, with gaps, duplicates
// and derived ids.
func TestIDSetMatchesAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := newIDSet(3)
	want := map[uint64]bool{}
	next := [3]uint64{}
	for i := 0; i < 300_000; i++ {
		seq := r.IntN(3)
		var id uint64
		switch x := r.Float64(); {
		case x < 0.01: // a derived id
			id = derive(uint64(i), 7)
		case x < 0.05 && next[seq] > 100: // a duplicate or a late one
			id = sourceID(seq, next[seq]-uint64(r.IntN(100))-1)
		default:
			id = sourceID(seq, next[seq])
			next[seq] += 1 + uint64(r.IntN(2)) // some offsets skipped for now
		}
		if got := s.CheckedAdd(id); got != !want[id] {
			t.Fatalf("add %d: new %v, want %v", id, got, !want[id])
		}
		want[id] = true
		if i%50_000 == 49_999 {
			s.compact()
		}
	}
	s.compact()
	if s.prefix[0] == 0 && s.prefix[1] == 0 && s.prefix[2] == 0 {
		t.Fatal("nothing folded into a prefix: the test checks nothing")
	}
	for seq := 0; seq < 3; seq++ {
		var n uint64
		for off := uint64(0); off < next[seq]; off++ {
			id := sourceID(seq, off)
			if s.Contains(id) != want[id] {
				t.Fatalf("contains(%d/%d) = %v, want %v", seq, off, s.Contains(id), want[id])
			}
			if want[id] {
				n++
			}
			if off%997 == 0 {
				lo := sourceID(seq, off/2)
				var m uint64
				for o := off / 2; o <= off; o++ {
					if want[sourceID(seq, o)] {
						m++
					}
				}
				if got := s.countRange(lo, id+1); got != m {
					t.Fatalf("countRange(%d: %d..%d) = %d, want %d", seq, off/2, off, got, m)
				}
			}
		}
	}
}
