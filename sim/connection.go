package sim

import "github.com/dspalab/dspalab/sim/des"

// connection is the one TCP connection from one worker to another that
// carries the buffers of every channel between them, as Flink's netty
// shuffle shares one NettyPartitionRequestClient per ConnectionID (the
// remote TaskManager's address; PartitionRequestClientFactory
// .createPartitionRequestClient, flink-runtime io/network/netty): the
// channels between two workers share its bandwidth. Each direction is a
// connection of its own (a full-duplex link): the buffers from worker a to
// worker b do not delay those from b to a.
//
// The link serializes buffers in the order they are sent (first come,
// first served), each at the bandwidth of its channel's network setting;
// with one bandwidth for the job, the channels between two workers
// together carry at most that bandwidth.
type connection struct {
	free des.Time // when the link has sent what it was given
}

// connKey names the connection from worker from to worker to.
type connKey struct{ from, to int }

// connectionTo returns the connection from worker from to worker to,
// creating it at its first use.
func (s *Sim) connectionTo(from, to int) *connection {
	k := connKey{from, to}
	c := s.conns[k]
	if c == nil {
		c = &connection{}
		if s.conns == nil {
			s.conns = map[connKey]*connection{}
		}
		s.conns[k] = c
	}
	return c
}

// transmit puts b bytes on the link at now, not before notBefore, at bw
// bytes per second, and returns when its last byte has left.
func (c *connection) transmit(now, notBefore des.Time, bytes int64, bw float64) des.Time {
	start := max(now, c.free, notBefore)
	c.free = addNs(start, float64(bytes)/bw*float64(des.Second))
	return c.free
}
