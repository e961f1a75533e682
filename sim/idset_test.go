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
		case x < 0.01: // an id of a source subtask the set has no prefix for
			id = sourceID(5, uint64(i))
		case x < 0.05 && next[seq] > 100: // a duplicate or a late one
			id = sourceID(seq, next[seq]-uint64(r.IntN(100))-1)
		case x < 0.052: // far ahead of the window, reached later
			id = sourceID(seq, next[seq]+windowBits+uint64(r.IntN(1000)))
		default:
			id = sourceID(seq, next[seq])
			next[seq] += 1 + uint64(r.IntN(2)) // some offsets skipped for now
		}
		if got := s.CheckedAdd(id); got != !want[id] {
			t.Fatalf("add %d: new %v, want %v", id, got, !want[id])
		}
		want[id] = true
	}
	if s.subs[0].prefix == 0 && s.subs[1].prefix == 0 && s.subs[2].prefix == 0 {
		t.Fatal("nothing folded into a prefix: the test checks nothing")
	}
	for id := range want { // every id added, the far ones too
		if !s.Contains(id) {
			t.Fatalf("id %d/%d added but not contained", originSeq(id), originOffset(id))
		}
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

// Offsets that arrive a block at a time in reverse (a block's first
// offset completes a run of up to 300 present after it, across words of
// the window), some far ahead in the bitmap meanwhile: the prefix ends
// past every offset, and the set answers as a map does.
func TestIDSetFoldsRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := newIDSet(1)
	want := map[uint64]bool{}
	add := func(off uint64) {
		id := sourceID(0, off)
		if got := s.CheckedAdd(id); got != !want[id] {
			t.Fatalf("add %d: new %v, want %v", off, got, !want[id])
		}
		want[id] = true
	}
	var next uint64
	for next < 200_000 {
		n := 1 + uint64(r.IntN(300))
		for o := next + n; o > next; o-- {
			add(o - 1)
			if r.IntN(50) == 0 {
				add(o - 1) // a duplicate
			}
		}
		if r.IntN(20) == 0 { // far ahead, in the bitmap until the window reaches it
			add(next + n + windowBits + uint64(r.IntN(5000)))
		}
		next += n
		if w := s.subs[0]; w.prefix < next || w.prefix > next && !want[sourceID(0, next)] {
			t.Fatalf("after offsets [0, %d): prefix %d", next, w.prefix)
		}
	}
	for id := range want {
		if !s.Contains(id) {
			t.Fatalf("offset %d added, not contained", originOffset(id))
		}
	}
	for off := uint64(0); off < next+2*windowBits; off++ {
		if id := sourceID(0, off); s.Contains(id) != want[id] {
			t.Fatalf("contains(%d) = %v, want %v", off, s.Contains(id), want[id])
		}
	}
	if p := s.subs[0].prefix; p < next {
		t.Fatalf("prefix %d, want at least %d (every offset below is present)", p, next)
	}
	if got := s.countRange(sourceID(0, 0), sourceID(0, next)); got != next {
		t.Fatalf("countRange of [0, %d) = %d, want %d", next, got, next)
	}
}

// A flatMap and a fan-out make copies; each copy class keeps the source
// ids of its records, dense, so they fold into prefixes as the original
// lineage's do: the bitmaps hold only the ragged edge, however long the
// run.
func TestCopiesFoldIntoPrefixes(t *testing.T) {
	sc := mustParse(t, `
name: copies
duration: 60s
sources: [{name: src, parallelism: 2, arrival: {process: poisson, rate: 2000/s}}]
operators: [{name: flat, input: src, parallelism: 2, service_time: {mean: 10us}, selectivity: 2.5}]
sinks:
  - {name: a, input: flat}
  - {name: b, input: flat}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(t.Context(), sc.Duration); err != nil {
		t.Fatal(err)
	}
	d := s.Result().Summary.Delivery
	for _, v := range s.vertices {
		k := v.sink
		if k == nil {
			continue
		}
		// 2 or 3 outputs per record: the original and the flatMap's
		// second and third; the second sink gets fan-out copies of all
		// three
		want := map[string]int{"a": 2, "b": 3}[v.name]
		if n := len(k.visible.copies); n != want {
			t.Errorf("%s: %d copy classes, want %d", v.name, n, want)
		}
		// the classes every record has (the original, the second output)
		// fold into prefixes; the third output's, for half the records,
		// stays a bitmap of about a bit per source record
		var bytes uint64
		folded := 0
		for _, c := range append([]*idSet{k.visible.zero}, mapValues(k.visible.copies)...) {
			bytes += c.bm.GetSizeInBytes()
			if c.subs[0].prefix+c.subs[1].prefix > 200_000 {
				folded++
			}
		}
		if folded != 2 || bytes > k.delivered/4 {
			t.Errorf("%s: %d classes folded into prefixes (want 2), %d bytes of bitmaps for %d records", v.name, folded, bytes, k.delivered)
		}
	}
	if d.Duplicated != 0 || d.Delivered < 2*2*2*60*2000 || d.Lost != 0 {
		t.Errorf("delivery %+v, want about 2 sinks × 2.5 × 240000 distinct and no duplicate", d)
	}
}

func mapValues(m map[uint32]*idSet) []*idSet {
	var vs []*idSet
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// makeVisible counts a record delivered the first time it is visible and
// duplicated (overwritten by an idempotent sink) afterwards, whatever its
// copy class and order: its in-line path for copy 0 in order counts as
// the set does.
func TestMakeVisibleCounts(t *testing.T) {
	for _, mode := range []deliveryKind{deliveryAtLeastOnce, deliveryIdempotent} {
		r := rand.New(rand.NewPCG(3, 4))
		k := newSinkState("", 2)
		k.kind = mode
		type rec struct {
			copy uint32
			id   uint64
		}
		seen := map[rec]bool{}
		var delivered, again uint64
		next := [2]uint64{}
		for i := 0; i < 200_000; i++ {
			seq := r.IntN(2)
			x := rec{id: sourceID(seq, next[seq])}
			switch f := r.Float64(); {
			case f < 0.02 && next[seq] > 10: // a replay
				x.id -= uint64(r.IntN(10)) + 1
			case f < 0.04:
				x.copy = uint32(r.IntN(3)) + 1
			case f < 0.05: // ahead of the prefix
				x.id += uint64(r.IntN(5)) + 1
			default:
				next[seq]++
			}
			if seen[x] {
				again++
			} else {
				delivered++
			}
			seen[x] = true
			k.makeVisible(x.copy, x.id)
		}
		dup, over := again, uint64(0)
		if mode == deliveryIdempotent {
			dup, over = 0, again
		}
		if k.delivered != delivered || k.duplicated != dup || k.overwritten != over || again == 0 {
			t.Fatalf("kind %d: delivered %d, duplicated %d, overwritten %d; want %d, %d, %d",
				mode, k.delivered, k.duplicated, k.overwritten, delivered, dup, over)
		}
	}
}
