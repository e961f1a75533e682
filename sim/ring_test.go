package sim

import "testing"

// TestRingGrowsInOrder fills rings whose contents wrap around the end of
// their slice at every head position, so that push doubles them there,
// and checks that the elements come out in the order they went in.
func TestRingGrowsInOrder(t *testing.T) {
	for popped := 0; popped < 8; popped++ {
		var r ring[int]
		next, want := 0, 0
		for range 8 {
			r.push(next)
			next++
		}
		for range popped {
			if v := r.pop(); v != want {
				t.Fatalf("popped %d: got %d, want %d", popped, v, want)
			}
			want++
		}
		for range 20 { // wraps, then doubles to 16 and 32
			r.push(next)
			next++
		}
		if r.len() != next-want {
			t.Fatalf("popped %d: len %d, want %d", popped, r.len(), next-want)
		}
		for i := range r.len() {
			if v := r.at(i); v != want+i {
				t.Fatalf("popped %d: at(%d) = %d, want %d", popped, i, v, want+i)
			}
		}
		for r.len() > 0 {
			if v := r.pop(); v != want {
				t.Fatalf("popped %d: got %d, want %d", popped, v, want)
			}
			want++
		}
		if want != next {
			t.Fatalf("popped %d: %d out, %d in", popped, want, next)
		}
	}
}
