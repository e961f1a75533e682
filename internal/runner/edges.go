package runner

import (
	"io"
	"path/filepath"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

// edgeFiles opens the edge-list files of a run's edge-stream sources,
// relative to base (the scenario file's directory, or TraceEnv.BaseDir),
// through regfile (a FIFO or a device is refused), and closes them after
// the run.
type edgeFiles struct {
	base  string
	files []io.Closer
}

// hasEdgeFile reports whether a source of sc reads an edge-list file.
func hasEdgeFile(sc *scenario.Scenario) bool {
	for _, s := range sc.Sources {
		if s.Edges != nil && s.Edges.Type == scenario.EdgesFile {
			return true
		}
	}
	return false
}

// opener returns the sim.EdgeOpener of the run.
func (e *edgeFiles) opener() sim.EdgeOpener {
	return func(_, file string) (io.Reader, error) {
		path := file
		if !filepath.IsAbs(path) && e.base != "" {
			path = filepath.Join(e.base, path)
		}
		f, err := regfile.Open(path)
		if err != nil {
			return nil, err
		}
		e.files = append(e.files, f)
		return f, nil
	}
}

// close closes the files opened; safe on a nil *edgeFiles.
func (e *edgeFiles) close() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		_ = f.Close()
	}
	e.files = nil
}
