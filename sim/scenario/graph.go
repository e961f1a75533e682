package scenario

import "github.com/dspalab/dspalab/internal/strictyaml"

// The job graph as the graph checks of validate.go see it. The order the
// simulator runs vertices in is the plan's (sim/plan).

// vertex is a source, operator or sink, as the graph checks see it.
type vertex struct {
	kind         string // kSources, kOperators or kSinks
	index        int    // in its list
	name         string
	parallelism  int
	inputs       []string
	partitioning string
	lateOutput   string // a window operator's late side output (late_output), read by this name
}

func (v *vertex) path() string { return strictyaml.Index(v.kind, v.index) }

// vertices lists the vertices of s: sources, operators, then sinks, each in
// declaration order.
func (s *Scenario) vertices() []*vertex {
	var vs []*vertex
	for i, x := range s.Sources {
		vs = append(vs, &vertex{kind: kSources, index: i, name: x.Name, parallelism: x.Parallelism})
	}
	for i, x := range s.Operators {
		v := &vertex{kind: kOperators, index: i, name: x.Name, parallelism: x.Parallelism,
			inputs: x.Inputs, partitioning: x.Partitioning}
		if x.Window != nil {
			v.lateOutput = x.Window.LateOutput
		}
		vs = append(vs, v)
	}
	for i, x := range s.Sinks {
		vs = append(vs, &vertex{kind: kSinks, index: i, name: x.Name, parallelism: x.Parallelism,
			inputs: x.Inputs, partitioning: x.Partitioning})
	}
	return vs
}

// edges returns, for each vertex index, the indices of its valid inputs
// (existing, not sinks), using the first vertex of each name; an input
// that names a window operator's late side output is an input from it.
func edges(vs []*vertex) (byName map[string]int, in [][]int) {
	byName = map[string]int{}
	for i, v := range vs {
		if _, dup := byName[v.name]; !dup && v.name != "" {
			byName[v.name] = i
		}
	}
	for i, v := range vs {
		if _, dup := byName[v.lateOutput]; !dup && v.lateOutput != "" {
			byName[v.lateOutput] = i
		}
	}
	in = make([][]int, len(vs))
	for i, v := range vs {
		for _, name := range v.inputs {
			if u, ok := byName[name]; ok && vs[u].kind != kSinks {
				in[i] = append(in[i], u)
			}
		}
	}
	return byName, in
}

// sccs returns the strongly connected components of the graph given by
// adjacency lists (Tarjan's algorithm, iterative).
func sccs(out [][]int) [][]int {
	n := len(out)
	idx := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range idx {
		idx[i] = -1
	}
	var comps [][]int
	var st []int
	next := 0
	type frame struct{ v, i int }
	for root := 0; root < n; root++ {
		if idx[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		idx[root], low[root] = next, next
		next++
		st = append(st, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.i < len(out[f.v]) {
				w := out[f.v][f.i]
				f.i++
				if idx[w] < 0 {
					idx[w], low[w] = next, next
					next++
					st = append(st, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], idx[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == idx[v] {
				var comp []int
				for {
					w := st[len(st)-1]
					st = st[:len(st)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	return comps
}
