package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// maxMemoryUsage is the help of --max-memory, the same in run and sweep
// (runner.Limits.MaxMemory: the up-front estimate, and the running budget
// it leaves).
const maxMemoryUsage = "refuse scenarios whose estimated structures (channels, subtasks, workers, key sets, checkpoints in flight, topic partitions, Bloom filters; a micro-batch job's state stores and queued batches) need more memory, and stop runs whose checkpoints pile up past it, e.g. 8GiB"

// outputFlags adds -o/--output FILE to cmd, and --out as its synonym
// (run, sweep and grade write with --out): both set *p, and
// checkOutputFlags refuses them together. what names the file ("the
// figure"); an existing file is replaced, only once the new one is
// written whole.
func outputFlags(cmd *cobra.Command, p *string, def, what string) {
	f := cmd.Flags()
	f.StringVarP(p, "output", "o", def, "write "+what+" to `FILE`, replacing an existing file once the new one is written whole")
	f.StringVar(p, "out", def, "the same as --output `FILE` (as run, sweep and grade name it)")
}

// checkOutputFlags is the usage error of --out and --output given
// together.
func checkOutputFlags(cmd *cobra.Command) error {
	if f := cmd.Flags(); f.Changed("out") && f.Changed("output") {
		return &usageError{fmt.Errorf("--out and --output (-o) are the same flag: give one")}
	}
	return nil
}

// durationValue is a flag of simulated time written as in scenarios
// ("30s", "2m", "1h30m"), parsed by scenario.ParseDuration; it must be
// positive.
type durationValue struct{ d *des.Time }

func (v durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return ""
	}
	return sim.FormatTime(*v.d)
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

// seedValue is --seed: a whole number from 0 to the largest uint64. A bad
// value is a *flagValueError, printed without pflag's "invalid argument"
// wrapping and strconv's jargon.
type seedValue struct{ n *uint64 }

func (v seedValue) String() string {
	if v.n == nil {
		return "0"
	}
	return strconv.FormatUint(*v.n, 10)
}

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return &flagValueError{fmt.Sprintf("--seed must be a whole number from 0 to %d, got %q", uint64(math.MaxUint64), s)}
	}
	*v.n = n
	return nil
}

func (seedValue) Type() string { return "uint" }

// flagValueError is a bad flag value whose message says it all, flag name
// included: the flag error function prints it as it is.
type flagValueError struct{ msg string }

func (e *flagValueError) Error() string { return e.msg }

// recordsValue is a positive number of records that may be written with an
// exponent ("2e7"); a fraction is rounded down.
type recordsValue struct{ n *int64 }

func (v recordsValue) String() string {
	if v.n == nil {
		return ""
	}
	return runner.Sci(float64(*v.n), -1)
}

func (v recordsValue) Set(s string) error {
	var f float64
	if err := (countValue{&f}).Set(s); err != nil {
		return err
	}
	if f < 1 {
		return fmt.Errorf("must be at least 1, got %s", s)
	}
	if f >= 1<<63 {
		*v.n = math.MaxInt64
	} else {
		*v.n = int64(f)
	}
	return nil
}

func (recordsValue) Type() string { return "number" }

// bytesValue is a positive byte size in the scenario format's units
// ("4GiB", "500MB").
type bytesValue struct{ n *int64 }

func (v bytesValue) String() string {
	if v.n == nil || *v.n == 0 {
		return ""
	}
	return scenario.FormatByteSize(*v.n)
}

func (v bytesValue) Set(s string) error {
	n, err := scenario.ParseByteSize(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("must be positive, got %s", s)
	}
	*v.n = n
	return nil
}

func (bytesValue) Type() string { return "bytes" }
