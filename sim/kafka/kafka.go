// Package kafka holds the pure parts of the simulated Kafka log, as Kafka's
// clients and Flink's KafkaSource compute them, bit for bit: the murmur2
// hash and the default key partitioner (org.apache.kafka.common.utils.Utils
// and org.apache.kafka.clients.producer.internals.BuiltInPartitioner), the
// round-robin partitioner (RoundRobinPartitioner), the sticky partitioner
// of records without a key (BuiltInPartitioner without adaptive load
// statistics), Flink's partition assignment
// (KafkaSourceEnumerator.getSplitOwner), and a consumer group's
// (RangeAssignor, assignor.go).
//
// It depends on nothing of the simulator, so that another engine (the
// micro-batch engine's direct Kafka input) computes the same partitions and
// owners.
package kafka

import (
	"encoding/binary"
	"math/rand/v2"
	"unicode/utf16"
)

// Murmur2 is Kafka's 32-bit murmur2 hash of data (Utils.murmur2, seed
// 0x9747b28c), with Java's int overflow: Kafka's test vectors hold,
// e.g. Murmur2([]byte("21")) = -973932308.
func Murmur2(data []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	length := len(data)
	h := uint32(seed) ^ uint32(length)
	length4 := length / 4
	for i := 0; i < length4; i++ {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := data[length&^3:]
	switch length % 4 {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// ToPositive is Kafka's Utils.toPositive: the number with its sign bit
// cleared (not its absolute value: ToPositive(-1) = 2147483647).
func ToPositive(n int32) int32 { return n & 0x7fffffff }

// PartitionForKey is Kafka's default partition of a record with a key
// (BuiltInPartitioner.partitionForKey): toPositive(murmur2(key)) mod
// partitions. partitions must be positive.
func PartitionForKey(serializedKey []byte, partitions int) int {
	return int(ToPositive(Murmur2(serializedKey))) % partitions
}

// SerializeKey is the serialized key of the simulator's key id k: the
// bytes Kafka's IntegerSerializer writes for it (4 bytes, big-endian),
// as a producer with an Integer key serializer sends it.
func SerializeKey(k uint32) [4]byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], k)
	return b
}

// KeyPartition is the partition Kafka's default partitioner gives the
// simulator's key id k (serialized by SerializeKey).
func KeyPartition(k uint32, partitions int) int {
	b := SerializeKey(k)
	return PartitionForKey(b[:], partitions)
}

// JavaStringHashCode is Java's String.hashCode of s: s[0]·31^(n−1) + … +
// s[n−1] over its UTF-16 code units, with int overflow.
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// SplitOwner is the reader (source subtask) that Flink's KafkaSource
// assigns partition p of topic to among readers subtasks
// (KafkaSourceEnumerator.getSplitOwner): partitions go round-robin,
// strictly ascending, from a start index given by the topic's name:
//
//	startIndex = ((topic.hashCode() * 31) & 0x7FFFFFFF) % numReaders
//	owner      = (startIndex + partition) % numReaders
//
// readers must be positive.
func SplitOwner(topic string, partition, readers int) int {
	start := int((JavaStringHashCode(topic)*31)&0x7fffffff) % readers
	return (start + partition) % readers
}

// Partitioner chooses the partition of each record a producer writes
// (Kafka's Partitioner). It is a value that a checkpoint copies: its
// state is plain fields and a PCG.
type Partitioner struct {
	kind       Kind
	partitions int
	counter    int32 // RoundRobin: RoundRobinPartitioner's counter
	// Sticky: the current partition, the bytes produced to it, the batch
	// size to switch at, and the random stream of the switches.
	current   int
	produced  int64
	batchSize int64
	pcg       rand.PCG
}

// Kind is a Kafka partitioner.
type Kind uint8

// Partitioners.
const (
	// Murmur2Key is the default partitioner of a record with a key:
	// PartitionForKey.
	Murmur2Key Kind = iota
	// RoundRobin is RoundRobinPartitioner: toPositive(counter++) mod
	// partitions, whatever the key.
	RoundRobin
	// Sticky is the built-in partitioner of records without a key
	// (KIP-480, KIP-794): it sticks to a partition until batch.size bytes
	// went to it, then switches to a uniformly random partition
	// (BuiltInPartitioner.nextPartition without load statistics; the
	// random partition may be the same one again).
	Sticky
)

// NewPartitioner returns a partitioner of kind over partitions (> 0).
// batchSize is Sticky's batch.size in bytes (Kafka's default 16384); seed1
// and seed2 seed Sticky's random switches.
func NewPartitioner(kind Kind, partitions int, batchSize int64, seed1, seed2 uint64) Partitioner {
	p := Partitioner{kind: kind, partitions: partitions, batchSize: max(batchSize, 1)}
	p.pcg = *rand.NewPCG(seed1, seed2)
	if kind == Sticky {
		p.current = p.random()
	}
	return p
}

// random is BuiltInPartitioner.randomPartition mod partitions.
func (p *Partitioner) random() int {
	return int(ToPositive(int32(uint32(p.pcg.Uint64())))) % p.partitions
}

// Partition returns the partition of the next record, of key id key and
// size bytes, and advances the partitioner's state.
func (p *Partitioner) Partition(key uint32, size int64) int {
	switch p.kind {
	case RoundRobin:
		n := p.counter
		p.counter++ // Java's getAndIncrement wraps around
		return int(ToPositive(n)) % p.partitions
	case Sticky:
		part := p.current
		p.produced += size
		if p.produced >= p.batchSize {
			p.current, p.produced = p.random(), 0
		}
		return part
	default:
		return KeyPartition(key, p.partitions)
	}
}
