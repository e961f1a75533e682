package main

import (
	"fmt"
	"strconv"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// durationValue is a flag of simulated time written as in scenarios
// ("30s", "2m", "1h30m"), parsed by scenario.ParseDuration; it must be
// positive.
type durationValue struct{ d *des.Time }

func (v durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return ""
	}
	return runner.FormatDuration(*v.d)
}

func (v durationValue) Set(s string) error {
	d, err := scenario.ParseDuration(s)
	if err != nil {
		return err
	}
	if d <= 0 {
		return fmt.Errorf("must be positive, got %s", s)
	}
	*v.d = d
	return nil
}

func (durationValue) Type() string { return "duration" }

// countValue is a positive number that may be written with an exponent
// ("5e9", "1.5e10") and prints as such.
type countValue struct{ n *float64 }

func (v countValue) String() string {
	if v.n == nil {
		return ""
	}
	return runner.Sci(*v.n, -1)
}

func (v countValue) Set(s string) error {
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("expected a number such as 5e9, got %q", s)
	}
	if !(n > 0) {
		return fmt.Errorf("must be positive, got %s", s)
	}
	*v.n = n
	return nil
}

func (countValue) Type() string { return "number" }
