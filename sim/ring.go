package sim

// ring is a FIFO queue on a power-of-two circular slice. It doubles when
// full and never shrinks, so a steady state allocates nothing.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (r *ring[T]) len() int { return r.n }

// push appends v at the tail. A full ring doubles in place of a call to
// grow (so that push is inlined): the elements from the head to the end
// of the old slice keep their places, and those that wrapped around to
// its start move to the new half, where the doubled mask finds them.
func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		l, h := len(r.buf), r.head
		r.buf = append(r.buf, make([]T, max(l, 4))...)
		copy(r.buf[l:], r.buf[:h])
		clear(r.buf[:h])
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

func (r *ring[T]) pop() T {
	var zero T
	buf, h := r.buf, r.head // locals: the store of zero reloads no field
	v := buf[h]
	buf[h] = zero
	r.head = (h + 1) & (len(buf) - 1)
	r.n--
	return v
}

func (r *ring[T]) peek() T { return r.buf[r.head] }

// add appends an element at the tail, as push does, and returns it, to
// be written in place (push(v) of a large T copies it twice).
func (r *ring[T]) add() *T {
	if r.n == len(r.buf) {
		l, h := len(r.buf), r.head
		r.buf = append(r.buf, make([]T, max(l, 4))...)
		copy(r.buf[l:], r.buf[:h])
		clear(r.buf[:h])
	}
	p := &r.buf[(r.head+r.n)&(len(r.buf)-1)]
	r.n++
	return p
}

// front returns the head element in place, to be read before drop.
func (r *ring[T]) front() *T { return &r.buf[r.head] }

// drop removes the head element without clearing it: for a T without
// pointers, whose stale copy holds nothing alive.
func (r *ring[T]) drop() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
}

// rotate moves the head to the tail: a pop and a push of the same
// element.
func (r *ring[T]) rotate() {
	buf, h := r.buf, r.head
	m := len(buf) - 1
	buf[(h+r.n)&m] = buf[h]
	r.head = (h + 1) & m
}

// at returns the i-th element from the head.
func (r *ring[T]) at(i int) T { return r.buf[(r.head+i)&(len(r.buf)-1)] }

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
