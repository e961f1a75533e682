package runner

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Validate parses each scenario named in args (files or built-in names, as
// Resolve finds them). It writes "ARG: ok" to stdout for each valid one and
// every problem of the others to stderr: the file:line:col lines of
// scenario.Parse, or "dspalab: message" for a scenario it cannot read. It
// returns ErrReported when any was invalid (the problems are already
// written), an error when stdout cannot be written (at once), nil
// otherwise.
func Validate(stdout, stderr io.Writer, args []string) error {
	stdout, stderr = orDiscard(stdout), orDiscard(stderr)
	failed := false
	for _, arg := range args {
		sc, label, err := Load(arg)
		if err == nil {
			err = checkTraces(label, sc)
		}
		if err != nil {
			failed = true
			WriteError(stderr, err)
			continue
		}
		if _, err := fmt.Fprintf(stdout, "%s: ok\n", arg); err != nil {
			return fmt.Errorf("printing the results: %w", err)
		}
		if err := writeWarnings(stderr, sc); err != nil {
			return err
		}
	}
	if failed {
		return ErrReported
	}
	return nil
}

// ListScenarios writes the built-in scenarios to w, one a line: the name
// and the description of the scenario, aligned. It returns the first error
// writing w.
func ListScenarios(w io.Writer) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 8, 2, ' ', 0)
	for _, name := range scenarios.Names() {
		data, err := scenarios.Get(name)
		if err != nil {
			return err
		}
		sc, err := scenario.Parse(name, data)
		if err != nil {
			return fmt.Errorf("built-in scenario %s is invalid (a bug; please report it):\n%w", name, err)
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, sc.Description)
	}
	if err := tw.Flush(); err != nil || ew.err != nil {
		return fmt.Errorf("printing the list: %w", cmp.Or(ew.err, err))
	}
	return nil
}

// errWriter keeps the first error of the writes to w and makes every
// later write fail with it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// ShowScenario writes the YAML of the built-in scenario name to w, or
// returns an error that lists the built-in names and suggests the nearest.
func ShowScenario(w io.Writer, name string) error {
	if !slices.Contains(scenarios.Names(), name) {
		return unknownScenario("no built-in scenario named", name)
	}
	data, err := scenarios.Get(name)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("printing the scenario: %w", err)
	}
	return nil
}

// ErrReported is returned when the problems were already written (by
// Validate): WriteError prints nothing more for it, and it exits 1.
var ErrReported = errors.New("problems reported above")
