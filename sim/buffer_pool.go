package sim

// bufferPool is a pool of network buffers, as Flink's LocalBufferPool: how
// many buffers are free, and (for a receiver's floating buffers) the input
// channels waiting for one, in the order they asked (Flink's
// BufferListener). A sender's result partition has one of
// channels × buffers_per_channel + floating_buffers buffers; a buffer it
// sent returns to it when it reaches the receiver.
type bufferPool struct {
	available int
	waiting   ring[*channel]
}

// request takes a buffer; false when none is free.
func (p *bufferPool) request() bool {
	if p.available == 0 {
		return false
	}
	p.available--
	return true
}

// recycle returns a buffer to the pool.
func (p *bufferPool) recycle() { p.available++ }
