package sim

import "math"

// writePath is how the record writer writes a record to a partition,
// decided once when the partition is built (writePathOf) rather than
// per record from its edge: to its one channel, to the channel choose
// picks, or by the writer's general loop. Flink decides likewise once,
// when it builds an edge's writer (RecordWriterBuilder.build: a
// BroadcastRecordWriter or a ChannelSelectorRecordWriter).
type writePath uint8

const (
	pathGeneral writePath = iota // chained, a late side output, broadcast
	pathOne                      // one channel (forward, or any partitioning with one receiver)
	pathChoose                   // hash, rebalance, rescale over several channels
)

// writePathOf returns the write path of a network partition of edge e
// with chans channels.
func writePathOf(e *edge, chans int) writePath {
	switch {
	case e.late || e.part == partBroadcast:
		return pathGeneral
	case chans == 1 || e.part == partForward:
		return pathOne
	}
	return pathChoose
}

// channelFor returns the channel r goes to on p, a partition of path
// pathOne or pathChoose (small enough to be inlined into the writer).
func (p *partition) channelFor(r *Record) *channel {
	if p.path == pathOne {
		return p.chans[0]
	}
	return p.choose(r)
}

// choose picks the channel of a non-broadcast record.
// Hash is tested first, by an if: a switch tests the partitioners in
// the order of their values, forward first.
func (p *partition) choose(r *Record) *channel {
	e := p.edge
	if e.part == partHash {
		if k := int(r.Key); k < len(e.keyOwner) {
			return p.chans[e.keyOwner[k]]
		}
		return p.hashed(r)
	}
	if e.part == partForward {
		return p.chans[0]
	}
	// rebalance, rescale: round-robin over this partition's channels
	c := p.chans[p.rr]
	p.rr++
	if p.rr == len(p.chans) {
		p.rr = 0
	}
	return c
}

// hashed is choose over a hash edge for a key outside its table.
func (p *partition) hashed(r *Record) *channel {
	kg := keyGroup(r.Key, p.edge.maxParallelism)
	return p.chans[kg*len(p.chans)/p.edge.maxParallelism]
}

// keyOwnerKeys is the largest key space for which a hash edge keeps the
// receiver of every key in a table (keyOwners: 2 bytes a key); the keys
// beyond it are hashed per record.
const keyOwnerKeys = 1 << 16

// keyOwners returns the receiver of each key in [0, keys) over a hash
// edge into parallelism receivers with maxParallelism key groups (Flink's
// KeyGroupRangeAssignment.assignKeyToParallelOperator: the key's group,
// keyGroup, and that group's owner, key group × parallelism / max
// parallelism), computed once so that a record costs a table look-up, not
// a hash and two divisions. choose hashes the keys outside the table.
func keyOwners(keys, parallelism, maxParallelism int) []uint16 {
	own := make([]uint16, min(keys, keyOwnerKeys))
	for k := range own {
		own[k] = uint16(keyGroup(uint32(k), maxParallelism) * parallelism / maxParallelism)
	}
	return own
}

// keyGroup is Flink's KeyGroupRangeAssignment.assignToKeyGroup for an
// integer key: murmurHash(key.hashCode()) % maxParallelism.
func keyGroup(key uint32, maxParallelism int) int {
	return int(murmurHash(int32(key)) % int32(maxParallelism))
}

// murmurHash is Flink's MathUtils.murmurHash(int).
func murmurHash(code int32) int32 {
	c := uint32(code)
	c *= 0xcc9e2d51
	c = c<<15 | c>>17
	c *= 0x1b873593
	c = c<<13 | c>>19
	c = c*5 + 0xe6546b64
	c ^= 4
	c ^= c >> 16
	c *= 0x85ebca6b
	c ^= c >> 13
	c *= 0xc2b2ae35
	c ^= c >> 16
	v := int32(c)
	switch {
	case v >= 0:
		return v
	case v != math.MinInt32:
		return -v
	default:
		return 0
	}
}
