package graph

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

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

// EdgeList is an edge-list file as read by ReadEdgeList.
type EdgeList struct {
	Edges []Edge
	// SelfLoops counts the lines (u, u) that were skipped: a self-loop
	// changes no distance and no component.
	SelfLoops int
	// Vertices is one more than the largest vertex id (0 for no edges).
	Vertices int
}

// ReadEdgeList reads an edge list in SNAP's format
// (https://snap.stanford.edu/data/): one edge per line, "u v" or
// "u v w", whitespace-separated; lines starting with # or % are comments,
// blank lines are skipped. A gzip file (found by its magic bytes) is
// decompressed. Vertex ids are non-negative integers below maxVertices
// (at most MaxVertices); a weight must be a number and is ignored.
// Self-loops are skipped and counted. At most limit edges are read
// (limit ≤ 0: all). A malformed line is a *LineError naming file:line.
func ReadEdgeList(r io.Reader, file string, maxVertices, limit int) (*EdgeList, error) {
	if maxVertices <= 0 || maxVertices > MaxVertices {
		maxVertices = MaxVertices
	}
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("graph: reading %s: %w", file, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	el := &EdgeList{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' || text[0] == '%' {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 && len(f) != 3 {
			return nil, &LineError{File: file, Line: line, Msg: fmt.Sprintf("want \"u v\" or \"u v w\", got %d fields: %q", len(f), clip(text))}
		}
		var ids [2]uint32
		for i := 0; i < 2; i++ {
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return nil, &LineError{File: file, Line: line, Msg: fmt.Sprintf("vertex id %q is not a non-negative integer", clip(f[i]))}
			}
			if n >= uint64(maxVertices) {
				return nil, &LineError{File: file, Line: line, Msg: fmt.Sprintf("vertex id %d is out of range: ids must be below %d", n, maxVertices)}
			}
			ids[i] = uint32(n)
		}
		if len(f) == 3 {
			if _, err := strconv.ParseFloat(f[2], 64); err != nil {
				return nil, &LineError{File: file, Line: line, Msg: fmt.Sprintf("weight %q is not a number", clip(f[2]))}
			}
		}
		if ids[0] == ids[1] {
			el.SelfLoops++
			continue
		}
		el.Edges = append(el.Edges, Edge{U: ids[0], V: ids[1]})
		el.Vertices = max(el.Vertices, int(ids[0])+1, int(ids[1])+1)
		if limit > 0 && len(el.Edges) >= limit {
			return el, nil
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{File: file, Line: line + 1, Msg: "line longer than 1 MiB"}
		}
		return nil, fmt.Errorf("graph: reading %s: %w", file, err)
	}
	return el, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
