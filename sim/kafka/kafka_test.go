package kafka

import "testing"

// TestMurmur2 checks Kafka's own test vectors (UtilsTest.testMurmur2).
func TestMurmur2(t *testing.T) {
	for in, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		if got := Murmur2([]byte(in)); got != want {
			t.Errorf("Murmur2(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestPartitionForKey: toPositive clears the sign bit (not abs), then mod.
func TestPartitionForKey(t *testing.T) {
	if got := ToPositive(-1); got != 2147483647 {
		t.Errorf("ToPositive(-1) = %d, want 2147483647", got)
	}
	// murmur2("foobar") = -790332482; & 0x7fffffff = 2^31 - 790332482 =
	// 1357151166; mod 4 = 2 (…66 = 4·…16 + 2), mod 7 = 1357151166 − 7·193878738 = 0.
	if got := PartitionForKey([]byte("foobar"), 4); got != 2 {
		t.Errorf("foobar over 4 partitions: %d, want 2", got)
	}
	if got := PartitionForKey([]byte("foobar"), 7); got != 0 {
		t.Errorf("foobar over 7 partitions: %d, want 0", got)
	}
	// murmur2("21") = -973932308 -> 1173551340, mod 3 = 0 (digit sum 30).
	if got := PartitionForKey([]byte("21"), 3); got != 0 {
		t.Errorf("21 over 3 partitions: %d, want 0", got)
	}
	// key ids serialized as IntegerSerializer does (big-endian); values
	// from an independent implementation of Utils.murmur2.
	for _, c := range []struct {
		key     uint32
		p, want int
	}{{0, 4, 0}, {1, 4, 0}, {1, 32, 16}, {2, 4, 3}, {2, 32, 19}, {42, 32, 24}, {999, 4, 3}, {999, 32, 7}} {
		if got := KeyPartition(c.key, c.p); got != c.want {
			t.Errorf("key %d over %d partitions: %d, want %d", c.key, c.p, got, c.want)
		}
	}
}

// TestSplitOwner is KafkaSourceEnumerator.getSplitOwner, table-tested.
func TestSplitOwner(t *testing.T) {
	// By hand: "a".hashCode() = 97; 97·31 = 3007; 3007 mod 4 = 3, so
	// over 4 readers partition 0 goes to reader 3, then 0, 1, 2, 3, ...
	for p, want := range []int{3, 0, 1, 2, 3, 0} {
		if got := SplitOwner("a", p, 4); got != want {
			t.Errorf("a-%d over 4 readers: reader %d, want %d", p, got, want)
		}
	}
	// "a" over 7 readers: 3007 = 7·429 + 4.
	if got := SplitOwner("a", 0, 7); got != 4 {
		t.Errorf("a-0 over 7 readers: %d, want 4", got)
	}
	// "clicks".hashCode() = -1357714453 (Java int arithmetic); ·31 wraps
	// to 860524917, positive; mod 5 = 2, mod 4 = 1, mod 3 = 0.
	if h := JavaStringHashCode("clicks"); h != -1357714453 {
		t.Fatalf(`"clicks".hashCode() = %d, want -1357714453`, h)
	}
	for _, c := range []struct{ p, readers, want int }{
		{0, 5, 2}, {1, 5, 3}, {3, 5, 0}, {0, 4, 1}, {3, 4, 0}, {0, 3, 0}, {2, 3, 2}, {7, 1, 0},
	} {
		if got := SplitOwner("clicks", c.p, c.readers); got != c.want {
			t.Errorf("clicks-%d over %d readers: %d, want %d", c.p, c.readers, got, c.want)
		}
	}
	// "topic1".hashCode()·31 = -1139260578: the & 0x7FFFFFFF matters
	// (1008223070, mod 3 = 2, mod 4 = 2).
	if got := SplitOwner("topic1", 0, 3); got != 2 {
		t.Errorf("topic1-0 over 3 readers: %d, want 2", got)
	}
	if got := SplitOwner("topic1", 3, 4); got != 1 {
		t.Errorf("topic1-3 over 4 readers: %d, want 1", got)
	}
	if h := JavaStringHashCode("é€"); h != 0xe9*31+0x20ac {
		t.Errorf("hashCode over UTF-16 units: %d", h)
	}
}

// TestPartitioners: round-robin cycles from 0; sticky keeps a partition
// for batch.size bytes, then draws again.
func TestPartitioners(t *testing.T) {
	rr := NewPartitioner(RoundRobin, 3, 0, 1, 2)
	for i, want := range []int{0, 1, 2, 0, 1, 2, 0} {
		if got := rr.Partition(uint32(i*7), 100); got != want {
			t.Fatalf("round-robin record %d: %d, want %d", i, got, want)
		}
	}
	rr.counter = 2147483647 // Java's counter wraps to MIN_VALUE, toPositive to 0
	if a, b := rr.Partition(0, 1), rr.Partition(0, 1); a != 2147483647%3 || b != 0 {
		t.Errorf("round-robin at the wrap: %d %d", a, b)
	}
	key := NewPartitioner(Murmur2Key, 32, 0, 1, 2)
	if got := key.Partition(42, 100); got != 24 {
		t.Errorf("murmur2 partitioner key 42: %d", got)
	}
	st := NewPartitioner(Sticky, 8, 1000, 3, 4)
	runs, first, n := 0, st.Partition(0, 100), 1
	last := first
	for i := 1; i < 10000; i++ {
		p := st.Partition(uint32(i), 100)
		if p != last {
			if n%10 != 0 {
				t.Fatalf("sticky switched after %d records of 100 B, want a multiple of 10 (batch 1000 B)", n)
			}
			runs++
			n = 0
		}
		n++
		last = p
	}
	// 1000 batches, each a new uniform draw over 8: about 7/8 differ
	if runs < 800 || runs > 950 {
		t.Errorf("sticky: %d switches over 1000 batches, want about 875", runs)
	}
	a := NewPartitioner(Sticky, 8, 1000, 3, 4)
	c := a // a checkpoint copies the value
	for i := 0; i < 50; i++ {
		if x, y := a.Partition(0, 100), c.Partition(0, 100); x != y {
			t.Fatal("a copied partitioner diverged")
		}
	}
}
