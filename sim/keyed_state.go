package sim

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Snapshot costs of the state backends (DESIGN.md §3 "State backends").
// The synchronous part of a snapshot blocks the task (aligned and
// stop-the-world; milliseconds: Flink's heap backend copies the state
// table's structure, copy-on-write; RocksDB flushes its memtable and
// hard-links its files); then the asynchronous part uploads the state.
const (
	heapSyncBytesPerS    = 1 << 30 // heap: bytes of the state table copied per second in the synchronous part
	heapEntryBytes       = 32      // heap: bytes of one key's table entry
	rocksDBSyncFixed     = 2 * des.Millisecond
	rocksDBSyncBytesPerS = 256 << 20 // rocksdb: changed bytes flushed per second
	rocksDBWriteBuffer   = 64 << 20  // rocksdb: at most this much is flushed (write_buffer_size)
)

// keyedState is the keyed state of one task, as Flink's keyed state
// backend (HeapKeyedStateBackend or RocksDBKeyedStateBackend) behind a
// keyed operator: the distinct keys it has seen, BytesPerKey each. Keys
// touched since the last snapshot are the delta of an incremental
// checkpoint.
type keyedState struct {
	bytesPerKey int64
	backend     string
	accessTime  des.Time
	keys        *keySet
	dirty       *keySet // incremental: keys touched since the last snapshot
	// extra is state held beside the per-key bytes: a window operator's
	// windows (window_operator.go)
	extra int64
	// extraDelta (incremental) is the part of extra that the operator's
	// snapshot found written since the previous one: the entries it put
	// or appended to and still holds (windowed.capture sets it)
	extraDelta int64
	// graph is the graph operator whose graph state this is (its keys
	// the vertices, its size in extra); nil otherwise.
	graph *graphOperator
}

func newKeyedState(ks *scenario.KeyedState, sb scenario.StateBackend, incremental bool, maxKeys int) *keyedState {
	k := &keyedState{bytesPerKey: ks.BytesPerKey, backend: sb.Type, accessTime: sb.AccessTime, keys: newKeySet(maxKeys)}
	if incremental {
		k.dirty = newKeySet(maxKeys)
	}
	return k
}

// denseKeys is the largest key space held in a plain bitset (1 MiB per
// subtask); larger ones use a compressed bitmap.
const denseKeys = 1 << 23

// keySet is a set of key ids: a bitset for key spaces up to denseKeys
// (one bit test per record), a roaring bitmap beyond.
type keySet struct {
	bits []uint64
	n    int
	bm   *roaring.Bitmap
}

func newKeySet(maxKeys int) *keySet {
	if maxKeys <= denseKeys {
		return &keySet{bits: make([]uint64, (maxKeys+63)/64)}
	}
	return &keySet{bm: roaring.New()}
}

// add adds key and reports whether it was new.
func (k *keySet) add(key uint32) bool {
	if k.bm != nil {
		return k.bm.CheckedAdd(key)
	}
	w, b := key/64, uint64(1)<<(key%64)
	if int(w) >= len(k.bits) {
		k.bits = append(k.bits, make([]uint64, int(w)+1-len(k.bits))...)
	}
	if k.bits[w]&b != 0 {
		return false
	}
	k.bits[w] |= b
	k.n++
	return true
}

func (k *keySet) len() int {
	if k.bm != nil {
		return int(k.bm.GetCardinality())
	}
	return k.n
}

func (k *keySet) clear() {
	if k.bm != nil {
		k.bm.Clear()
		return
	}
	clear(k.bits)
	k.n = 0
}

// sizeBytes is the memory of the set: its bits, or the compressed
// bitmap's size, and some 64 bytes of its own.
func (k *keySet) sizeBytes() int64 {
	if k.bm != nil {
		return 64 + int64(k.bm.GetSizeInBytes())
	}
	return 64 + 8*int64(cap(k.bits))
}

func (k *keySet) clone() *keySet {
	if k.bm != nil {
		return &keySet{bm: k.bm.Clone()}
	}
	return &keySet{bits: slices.Clone(k.bits), n: k.n}
}

// access reads and updates the state of key for one record: it returns
// the backend's access time, and grows the state by BytesPerKey for a key
// not seen before. Heap state counts against the worker's memory; past it
// the worker fails with an out-of-memory error.
func (k *keyedState) access(now des.Time, w *worker, key uint32) des.Time {
	if k.graph != nil {
		return 0 // a graph operator accesses its state by vertex (graph_operator.go)
	}
	if k.dirty != nil {
		k.dirty.add(key)
	}
	if k.keys.add(key) && k.backend == scenario.BackendHeap {
		w.grow(now, k.bytesPerKey)
	}
	return k.accessTime
}

// bytes returns the state size in bytes.
func (k *keyedState) bytes() int64 { return int64(k.keys.len())*k.bytesPerKey + k.extra }

// perKey returns the state bytes of one key: bytes_per_key, or a graph
// operator's mean over its vertices.
func (k *keyedState) perKey() int64 {
	if k.graph != nil {
		return k.extra / int64(max(k.keys.len(), 1))
	}
	return k.bytesPerKey
}

// snapshotCost returns the bytes a snapshot uploads (the changed state
// when incremental: the keys touched and the operator's entries written
// since the last snapshot; all of it otherwise) and its synchronous duration;
// it starts the next delta.
func (k *keyedState) snapshotCost() (upload, full int64, sync des.Time) {
	full = k.bytes()
	upload = full
	if k.dirty != nil {
		upload = int64(k.dirty.len())*k.perKey() + k.extraDelta
		k.dirty.clear()
		k.extraDelta = 0
	}
	if k.backend == scenario.BackendRocksDB {
		// flush the memtable: at most a write buffer of changes
		flush := min(upload, rocksDBWriteBuffer)
		return upload, full, rocksDBSyncFixed + des.FromSeconds(float64(flush)/rocksDBSyncBytesPerS)
	}
	// copy the state table's entries (copy-on-write from then on)
	return upload, full, des.FromSeconds(float64(int64(k.keys.len())*heapEntryBytes) / heapSyncBytesPerS)
}

// rocksDBNext is the time of one step of a RocksDB iterator (Next() over
// a block in the block cache, and the deserialisation of its small key):
// what a MapState scan pays per entry beside the seek of access_time.
const rocksDBNext = 100 * des.Nanosecond

// stateCost is the state backend's cost of one state access, by what it
// moves: access_time for the access itself (a heap lookup, or a RocksDB
// get, put or seek), plus on rocksdb the bytes it (de)serialises at
// serialization_bandwidth and, for a scan, rocksDBNext per entry. The heap
// hands objects over by reference: its accesses cost access_time whatever
// their size. One model for every operator with state: a keyed operator's
// record pays access (its state of bytes_per_key is touched in place), a
// graph operator's edge pays the accesses of its algorithm
// (graph_operator.go).
type stateCost struct {
	access  des.Time
	perByte float64  // nanoseconds per byte (0 on heap)
	next    des.Time // per entry of a scan (0 on heap)
}

func newStateCost(sb scenario.StateBackend) stateCost {
	c := stateCost{access: sb.AccessTime}
	if r := sb.SerializationRate(); r > 0 {
		c.perByte = float64(des.Second) / r
		c.next = rocksDBNext
	}
	return c
}

// point is one access that (de)serialises bytes.
func (c stateCost) point(bytes int64) des.Time {
	return c.access + des.Time(float64(bytes)*c.perByte+0.5)
}

// scan is one seek and a scan of entries entries of bytes each.
func (c stateCost) scan(entries int, bytes int64) des.Time {
	return c.access + des.Time(entries)*c.next + des.Time(float64(int64(entries)*bytes)*c.perByte+0.5)
}
