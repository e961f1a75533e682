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
	pathChoose                   // rebalance, rescale over several channels
	pathHash                     // hash over several channels
)

// writePathOf returns the write path of a network partition of edge e
// with chans channels.
func writePathOf(e *edge, chans int) writePath {
	switch {
	case e.late || e.part == partBroadcast:
		return pathGeneral
	case chans == 1 || e.part == partForward:
		return pathOne
	case e.part == partHash:
		return pathHash
	}
	return pathChoose
}

// channelFor returns the channel r goes to on p, a partition of path
// pathOne, pathHash or pathChoose, when it is decided without choose's
// call: p's one channel, a hash partition's channel of a key in its table
// (keyChannels), the next of the round robin; else nil (a key beyond the
// table), and the writer calls choose. It is small enough to be inlined
// into the writer, so that a record's channel costs no call: Flink's
// ChannelSelectorRecordWriter asks its selector per record too
// (KeyGroupStreamPartitioner, RebalancePartitioner .selectChannel), and
// the selector here is the same, only resolved to the channels when the
// partition is built.
func (p *partition) channelFor(r *Record) *channel {
	if c := p.one; c != nil {
		return c
	}
	if k := int(r.Key); k < len(p.keyChans) { // a hash partition's only
		return p.keyChans[k]
	}
	if p.path == pathChoose { // rebalance, rescale: choose's round robin
		c := p.chans[p.rr]
		p.rr++
		if p.rr == len(p.chans) {
			p.rr = 0
		}
		return c
	}
	return nil
}

// choose picks the channel of a non-broadcast record: what channelFor
// does not decide in line, and the writer's general loop.
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

// keyChanKeys is the largest key space for which a hash partition keeps
// the channel of every key (keyChannels: 8 bytes a key, 32 KiB at most);
// the keys beyond it go through choose and the edge's keyOwner table.
const keyChanKeys = 1 << 12

// keyChannels returns the channel of each key of a hash partition over
// chans with the edge's key table own (keyOwners), for the keys below
// keyChanKeys: channelFor's look-up in line; nil when there are none.
func keyChannels(chans []*channel, own []uint16) []*channel {
	n := min(len(own), keyChanKeys)
	if n == 0 {
		return nil
	}
	cs := make([]*channel, n)
	for k := range cs {
		cs[k] = chans[own[k]]
	}
	return cs
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
