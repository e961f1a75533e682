package graph

import "slices"

// Components is a union-find (disjoint-set forest) over the vertices of a
// stream, with union by size and path halving (Tarjan and van Leeuwen,
// "Worst-case analysis of set union algorithms", 1984): the connected
// components of the edges added so far.
type Components struct {
	parent []uint32
	size   []uint32
	seen   []bool
	// Vertices is the number of distinct vertices seen; Sets the number
	// of components among them; Merges the edges that joined two.
	Vertices, Sets int
	Merges         uint64
}

func (c *Components) grow(x uint32) {
	if int(x) < len(c.parent) {
		return
	}
	n := len(c.parent)
	m := max(int(x)+1, 2*n)
	for i := n; i < m; i++ {
		c.parent = append(c.parent, uint32(i))
		c.size = append(c.size, 1)
		c.seen = append(c.seen, false)
	}
}

func (c *Components) touch(x uint32) {
	c.grow(x)
	if !c.seen[x] {
		c.seen[x] = true
		c.Vertices++
		c.Sets++
	}
}

// Find returns the root of x's set and the parent pointers it followed
// (the state accesses of a find).
func (c *Components) Find(x uint32) (root uint32, steps int) {
	c.grow(x)
	for c.parent[x] != x {
		c.parent[x] = c.parent[c.parent[x]] // path halving
		x = c.parent[x]
		steps++
	}
	return x, steps
}

// Add joins the components of u and v; it returns whether they were
// different and the parent pointers the two finds followed.
func (c *Components) Add(u, v uint32) (merged bool, steps int) {
	c.touch(u)
	c.touch(v)
	ru, su := c.Find(u)
	rv, sv := c.Find(v)
	steps = su + sv
	if ru == rv {
		return false, steps
	}
	if c.size[ru] < c.size[rv] {
		ru, rv = rv, ru
	}
	c.parent[rv] = ru
	c.size[ru] += c.size[rv]
	c.Sets--
	c.Merges++
	return true, steps
}

// Clone returns a copy of c (a snapshot of its state).
func (c *Components) Clone() *Components {
	x := *c
	x.parent, x.size, x.seen = slices.Clone(c.parent), slices.Clone(c.size), slices.Clone(c.seen)
	return &x
}

// Largest returns the number of vertices in the largest component.
func (c *Components) Largest() int {
	best := 0
	for i := range c.parent {
		if c.seen[i] && c.parent[i] == uint32(i) {
			best = max(best, int(c.size[i]))
		}
	}
	return best
}

// Degrees counts the degree of every vertex of a stream.
type Degrees struct {
	deg []uint32
	// Vertices is the number of distinct vertices seen; Max the largest
	// degree.
	Vertices int
	Max      uint32
}

// Add counts the edge (u, v) at both endpoints; it returns their degrees
// before the edge.
func (d *Degrees) Add(u, v uint32) (du, dv uint32) {
	if m := int(max(u, v)) + 1; m > len(d.deg) {
		d.deg = append(d.deg, make([]uint32, max(m, 2*len(d.deg))-len(d.deg))...)
	}
	du, dv = d.deg[u], d.deg[v]
	for _, x := range [2]uint32{u, v} {
		if d.deg[x] == 0 {
			d.Vertices++
		}
		d.deg[x]++
		d.Max = max(d.Max, d.deg[x])
	}
	return du, dv
}

// Clone returns a copy of d (a snapshot of its state).
func (d *Degrees) Clone() *Degrees {
	x := *d
	x.deg = slices.Clone(d.deg)
	return &x
}

// Of returns the degree of x.
func (d *Degrees) Of(x uint32) uint32 {
	if int(x) >= len(d.deg) {
		return 0
	}
	return d.deg[x]
}

// Each calls f with every vertex of non-zero degree and its degree, by
// increasing vertex id.
func (d *Degrees) Each(f func(x, deg uint32)) {
	for x, n := range d.deg {
		if n > 0 {
			f(uint32(x), n)
		}
	}
}
