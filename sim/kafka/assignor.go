package kafka

import "sort"

// RangeAssign is Kafka's RangeAssignor (org.apache.kafka.clients.consumer.RangeAssignor,
// the first of the default partition.assignment.strategy [RangeAssignor,
// CooperativeStickyAssignor] of a plain consumer in Kafka 3.x) for one
// topic of partitions partitions subscribed by members (their member ids,
// or group.instance.id under static membership: MemberInfo's order):
// the members are sorted lexicographically (Java's String.compareTo, byte
// order for ASCII: "m-10" comes before "m-2"), the partitions laid out in
// numeric order, and member i of the sorted list gets
//
//	start  = (partitions / n) * i + min(i, partitions % n)
//	length = partitions / n + (1 if i < partitions % n else 0)
//
// so the first partitions % n members have one partition more. It returns,
// for each member in the order given (not sorted), its partitions in
// ascending order; a member past the partitions gets none. Rack-aware
// assignment (KIP-881) is left out: no member has a rack.
func RangeAssign(members []string, partitions int) [][]int {
	n := len(members)
	out := make([][]int, n)
	if n == 0 || partitions <= 0 {
		return out
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return members[order[a]] < members[order[b]] })
	per, extra := partitions/n, partitions%n
	for i, m := range order {
		start := per*i + min(i, extra)
		length := per
		if i+1 <= extra {
			length++
		}
		ps := make([]int, 0, length)
		for p := start; p < start+length; p++ {
			ps = append(ps, p)
		}
		out[m] = ps
	}
	return out
}
