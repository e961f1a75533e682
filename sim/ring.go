package sim

// ring is a FIFO queue on a power-of-two circular slice. It grows when full
// and never shrinks, so a steady state allocates nothing.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

func (r *ring[T]) pop() T {
	var zero T
	v := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return v
}

func (r *ring[T]) peek() T { return r.buf[r.head] }

// rotate moves the head to the tail: a pop and a push of the same
// element.
func (r *ring[T]) rotate() {
	m := len(r.buf) - 1
	r.buf[(r.head+r.n)&m] = r.buf[r.head]
	r.head = (r.head + 1) & m
}

// at returns the i-th element from the head.
func (r *ring[T]) at(i int) T { return r.buf[(r.head+i)&(len(r.buf)-1)] }

func (r *ring[T]) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 4
	}
	nb := make([]T, size)
	for i := 0; i < r.n; i++ {
		nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = nb, 0
}

// removeAt removes and returns the i-th element from the head, keeping
// the order of the others.
func (r *ring[T]) removeAt(i int) T {
	v := r.at(i)
	for j := i; j > 0; j-- {
		r.buf[(r.head+j)&(len(r.buf)-1)] = r.buf[(r.head+j-1)&(len(r.buf)-1)]
	}
	r.pop()
	return v
}
