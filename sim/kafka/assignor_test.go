package kafka

import (
	"fmt"
	"testing"
)

// TestRangeAssign is RangeAssignor's rule, table-tested: the cases of
// Kafka's RangeAssignorTest (one consumer, two consumers over 3
// partitions, more consumers than partitions) and the lexicographic order
// of member ids past 9.
func TestRangeAssign(t *testing.T) {
	for _, c := range []struct {
		members    []string
		partitions int
		want       string
	}{
		{[]string{"c0"}, 3, "[[0 1 2]]"},
		{[]string{"c0", "c1"}, 3, "[[0 1] [2]]"},
		{[]string{"c1", "c0"}, 3, "[[2] [0 1]]"}, // sorted, not in the given order
		{[]string{"c0", "c1", "c2"}, 2, "[[0] [1] []]"},
		{[]string{"c0", "c1", "c2"}, 8, "[[0 1 2] [3 4 5] [6 7]]"},
		{[]string{"c0", "c1", "c2"}, 12, "[[0 1 2 3] [4 5 6 7] [8 9 10 11]]"},
		{[]string{"c0", "c2"}, 12, "[[0 1 2 3 4 5] [6 7 8 9 10 11]]"}, // after c1 left
		{[]string{"c0", "c1", "c2", "c3"}, 6, "[[0 1] [2 3] [4] [5]]"},
		// "g-10" < "g-2": g-0, g-1, g-10, g-2, ... (Java's String order)
		{[]string{"g-0", "g-1", "g-2", "g-3", "g-4", "g-5", "g-6", "g-7", "g-8", "g-9", "g-10"}, 12,
			"[[0 1] [2] [4] [5] [6] [7] [8] [9] [10] [11] [3]]"},
		{nil, 4, "[]"},
		{[]string{"c0"}, 0, "[[]]"},
	} {
		if got := fmt.Sprint(RangeAssign(c.members, c.partitions)); got != c.want {
			t.Errorf("RangeAssign(%v, %d) = %s, want %s", c.members, c.partitions, got, c.want)
		}
	}
}
