package graph

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Stream is an edge stream read one edge at a time: a generator or an
// edge-list file. Next returns false at the end of the stream or on an
// error (Err then says which).
type Stream interface {
	Next() (Edge, bool)
	Err() error
}

// Collect reads up to limit edges of s (limit ≤ 0: all).
func Collect(s Stream, limit int) ([]Edge, error) {
	var out []Edge
	for limit <= 0 || len(out) < limit {
		e, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, e)
	}
	return out, s.Err()
}

// ER is the G(n, p) stream of ErdosRenyi.
type ER struct {
	n    int
	p    float64
	lp   float64
	v, w int
	rng  *rand.Rand
}

// NewER returns the G(n, p) edge stream of ErdosRenyi.
func NewER(n int, p float64, rng *rand.Rand) *ER {
	return &ER{n: n, p: p, lp: math.Log(1 - p), v: 1, w: -1, rng: rng}
}

// Next returns the next edge.
func (g *ER) Next() (Edge, bool) {
	if g.n < 2 || g.p <= 0 {
		return Edge{}, false
	}
	for g.v < g.n {
		if g.p >= 1 {
			g.w++
		} else {
			r := 1 - g.rng.Float64() // in (0, 1]
			g.w += 1 + int(math.Floor(math.Log(r)/g.lp))
		}
		for g.w >= g.v && g.v < g.n {
			g.w -= g.v
			g.v++
		}
		if g.v < g.n {
			return Edge{U: uint32(g.v), V: uint32(g.w)}, true
		}
	}
	return Edge{}, false
}

// Err returns nil: a generator does not fail.
func (g *ER) Err() error { return nil }

// BA is the preferential-attachment stream of BarabasiAlbert.
type BA struct {
	n, m, m0 int
	rng      *rand.Rand
	ends     []uint32
	picked   []uint32
	v, i     int // the vertex attaching and its next pick, or the clique's pair
	u        int
}

// NewBA returns the preferential-attachment edge stream of BarabasiAlbert.
func NewBA(n, m int, rng *rand.Rand) *BA {
	return &BA{n: n, m: m, m0: min(m+1, n), rng: rng, v: 1, u: 0}
}

// Next returns the next edge.
func (g *BA) Next() (Edge, bool) {
	if g.m < 1 || g.n < 2 {
		return Edge{}, false
	}
	if g.v < g.m0 { // the initial clique
		e := Edge{U: uint32(g.v), V: uint32(g.u)}
		g.ends = append(g.ends, e.U, e.V)
		if g.u++; g.u == g.v {
			g.v, g.u = g.v+1, 0
		}
		return e, true
	}
	if g.v >= g.n {
		return Edge{}, false
	}
	if g.i == 0 {
		g.picked = g.picked[:0]
		for len(g.picked) < g.m {
			t := g.ends[g.rng.IntN(len(g.ends))]
			dup := false
			for _, p := range g.picked {
				if p == t {
					dup = true
					break
				}
			}
			if !dup {
				g.picked = append(g.picked, t)
			}
		}
	}
	e := Edge{U: uint32(g.v), V: g.picked[g.i]}
	if g.i++; g.i == g.m {
		// the new vertex's edges count for the next vertex's choice
		for _, t := range g.picked {
			g.ends = append(g.ends, uint32(g.v), t)
		}
		g.v, g.i = g.v+1, 0
	}
	return e, true
}

// Err returns nil: a generator does not fail.
func (g *BA) Err() error { return nil }

// GridStream is the stream of Grid.
type GridStream struct {
	rows, cols int
	id, side   int
}

// NewGrid returns the rows × cols grid's edge stream of Grid.
func NewGrid(rows, cols int) *GridStream { return &GridStream{rows: rows, cols: cols} }

// Next returns the next edge.
func (g *GridStream) Next() (Edge, bool) {
	for g.id < g.rows*g.cols {
		r, c := g.id/g.cols, g.id%g.cols
		side := g.side
		if g.side++; g.side == 2 {
			g.id, g.side = g.id+1, 0
		}
		if side == 0 && c+1 < g.cols {
			return Edge{U: uint32(r*g.cols + c), V: uint32(r*g.cols + c + 1)}, true
		}
		if side == 1 && r+1 < g.rows {
			return Edge{U: uint32(r*g.cols + c), V: uint32((r+1)*g.cols + c)}, true
		}
	}
	return Edge{}, false
}

// Err returns nil: a generator does not fail.
func (g *GridStream) Err() error { return nil }

// LineError is a malformed line of an edge-list file: its 1-based line
// number and what is wrong.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// EdgeReader reads an edge list in SNAP's format
// (https://snap.stanford.edu/data/): one edge per line, "u v" or
// "u v w", whitespace-separated; lines starting with # or % are comments,
// blank lines are skipped. A gzip file (found by its magic bytes) is
// decompressed. Vertex ids are non-negative integers below the bound given
// (at most MaxVertices); a weight must be a number and is ignored.
// Self-loops are skipped and counted (SelfLoops). A malformed line ends
// the stream with a *LineError naming file:line (Err).
type EdgeReader struct {
	file      string
	bound     uint64
	sc        *bufio.Scanner
	zr        *gzip.Reader
	line      int
	err       error
	SelfLoops int
	// Vertices is one more than the largest vertex id read so far.
	Vertices int
}

// NewEdgeReader returns a reader of the edge list r, named file in errors,
// with vertex ids below maxVertices (≤ 0 or above MaxVertices: MaxVertices).
func NewEdgeReader(r io.Reader, file string, maxVertices int) *EdgeReader {
	if maxVertices <= 0 || maxVertices > MaxVertices {
		maxVertices = MaxVertices
	}
	er := &EdgeReader{file: file, bound: uint64(maxVertices)}
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			er.err = fmt.Errorf("graph: reading %s: %w", file, err)
			return er
		}
		er.zr = zr
		br = bufio.NewReader(zr)
	}
	er.sc = bufio.NewScanner(br)
	er.sc.Buffer(make([]byte, 64<<10), 1<<20)
	return er
}

// Err returns the error that ended the stream, nil at its end.
func (er *EdgeReader) Err() error { return er.err }

func (er *EdgeReader) fail(msg string, args ...any) (Edge, bool) {
	er.err = &LineError{File: er.file, Line: er.line, Msg: fmt.Sprintf(msg, args...)}
	return Edge{}, false
}

// Next returns the next edge.
func (er *EdgeReader) Next() (Edge, bool) {
	if er.err != nil || er.sc == nil {
		return Edge{}, false
	}
	for er.sc.Scan() {
		er.line++
		text := strings.TrimSpace(er.sc.Text())
		if text == "" || text[0] == '#' || text[0] == '%' {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 && len(f) != 3 {
			return er.fail("want \"u v\" or \"u v w\", got %d fields: %q", len(f), clip(text))
		}
		var ids [2]uint32
		for i := 0; i < 2; i++ {
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return er.fail("vertex id %q is not a non-negative integer", clip(f[i]))
			}
			if n >= er.bound {
				return er.fail("vertex id %d is out of range: ids must be below %d", n, er.bound)
			}
			ids[i] = uint32(n)
		}
		if len(f) == 3 {
			if _, err := strconv.ParseFloat(f[2], 64); err != nil {
				return er.fail("weight %q is not a number", clip(f[2]))
			}
		}
		if ids[0] == ids[1] {
			er.SelfLoops++
			continue
		}
		er.Vertices = max(er.Vertices, int(ids[0])+1, int(ids[1])+1)
		return Edge{U: ids[0], V: ids[1]}, true
	}
	if err := er.sc.Err(); err != nil {
		er.line++
		if errors.Is(err, bufio.ErrTooLong) {
			return er.fail("line longer than 1 MiB")
		}
		er.err = fmt.Errorf("graph: reading %s: %w", er.file, err)
	}
	return Edge{}, false
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
