package graph

// Primitive is the Flink state primitive that holds a vertex's neighbour
// list in keyed state, keyed by vertex id
// (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/state/#using-keyed-state).
type Primitive string

// State primitives of the adjacency list. Flink's "Performance
// considerations" for RocksDB say why they differ: RocksDB's ListState
// appends without (de)serialising the list (a merge operator,
// RocksDBListState.add), and every MapState entry is a RocksDB key-value
// pair of its own (RocksDBMapState: key group, key and user key in the
// RocksDB key), whereas a ValueState holds one serialised value that every
// value() deserialises and every update() serialises whole
// (RocksDBValueState).
const (
	ValueState Primitive = "value" // ValueState<List<Long>>: the whole list is one value
	ListState  Primitive = "list"  // ListState<Long>: append one neighbour, get() reads all
	MapState   Primitive = "map"   // MapState<Long, Boolean>: one entry per neighbour
)

// Primitives lists the primitives in the order the format documents them.
var Primitives = []Primitive{ValueState, ListState, MapState}

// Sizes of the state of one vertex, in bytes, by backend. They are
// estimates in the spirit of Flink's own (and of the JVM's object layout
// with compressed references): a heap state table entry of 32 bytes
// (CopyOnWriteStateMap.StateMapEntry) with a boxed Long key of 16; an
// ArrayList of 40 bytes (object and array headers) plus a reference and a
// boxed Long, 24 bytes, per neighbour; a HashMap of 48 bytes plus a node
// (32), a boxed Long key (16) and a shared Boolean per entry. On RocksDB
// every key-value pair costs its serialised key (key group prefix of 2
// bytes, the vertex id of 8, the namespace byte) and RocksOverhead bytes
// of RocksDB's own (the internal key's 8-byte sequence number and type,
// varint lengths, index and filter shares); a ValueState value holds a
// length and 8 bytes per neighbour, a ListState value 8 bytes plus one
// delimiter per element (RocksDBListState's serialisation), and a MapState
// entry's key adds the user key of 8 bytes and its value 1.
const (
	HeapEntry          = 32 + 16 // state table entry and boxed key
	HeapListHeader     = 40
	HeapListPerElement = 24
	HeapMapHeader      = 48
	HeapMapPerEntry    = 32 + 16
	RocksKey           = 2 + 8 + 1
	RocksOverhead      = 24
	RocksValueHeader   = 4
	RocksPerNeighbour  = 8 // a serialised vertex id
	RocksListDelimiter = 1
	RocksMapEntry      = RocksKey + 8 + 1 + RocksOverhead // one MapState entry: key, user key, value, overhead
)

// StateBytes is the state size of an adjacency list of vertices with
// entries neighbour entries in all (twice the edges) for primitive p, on
// RocksDB when rocks is true and on the heap otherwise.
func StateBytes(p Primitive, rocks bool, vertices, entries int64) int64 {
	if !rocks {
		switch p {
		case MapState:
			return vertices*(HeapEntry+HeapMapHeader) + entries*HeapMapPerEntry
		default:
			return vertices*(HeapEntry+HeapListHeader) + entries*HeapListPerElement
		}
	}
	switch p {
	case MapState:
		return entries * RocksMapEntry
	case ListState:
		return vertices*(RocksKey+RocksOverhead) + entries*(RocksPerNeighbour+RocksListDelimiter)
	default:
		return vertices*(RocksKey+RocksOverhead+RocksValueHeader) + entries*RocksPerNeighbour
	}
}

// ValueBytes is the serialised size of one vertex's neighbour list of
// deg entries in primitive p: what a ValueState or ListState read
// deserialises whole on RocksDB (a MapState reads entry by entry: see
// RocksMapEntry).
func ValueBytes(p Primitive, deg int) int64 {
	if p == ListState {
		return int64(deg) * (RocksPerNeighbour + RocksListDelimiter)
	}
	return RocksValueHeader + int64(deg)*RocksPerNeighbour
}

// CounterBytes is the state size of `values` small values per vertex (8
// bytes each: a degree counter, a union-find parent or size) for
// `vertices` vertices, each value its own ValueState entry, on RocksDB
// when rocks is true and on the heap otherwise (a table entry, the boxed
// key and a boxed Long of 16 bytes).
func CounterBytes(rocks bool, vertices int64, values int64) int64 {
	if rocks {
		return vertices * values * (RocksKey + RocksOverhead + 8)
	}
	return vertices * values * (HeapEntry + 16)
}

// MapEntryBytes is what a MapState access (de)serialises of one entry:
// the neighbour id (the user key) and its one-byte value.
const MapEntryBytes = 8 + 1
