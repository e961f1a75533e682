// Command dspalab is a discrete-event simulator of Flink-like stream
// processing, built as a teaching lab. See `dspalab --help` and README.md.
//
// The commands are thin: each parses its flags and calls a package
// (internal/runner, sim/scenario, scenarios), so tests cover the packages
// directly and the command through testscript (testdata/script/*.txtar).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/runner"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	os.Exit(realMain())
}

// doubleSignal is how long after an interrupt another one counts as the
// same (see realMain).
const doubleSignal = time.Second

// realMain runs the command line and returns the exit status: 0 ok, 1
// invalid scenario or failed run, 2 usage error, 130 interrupted.
func realMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first interrupt, restore the default behaviour: a
		// second Ctrl-C kills the process at once. Not within a second:
		// a signal sent twice at once is one interrupt (timeout(1)
		// signals its child and then the child's process group), and
		// killing then would lose the outputs the first one is writing.
		<-ctx.Done()
		time.Sleep(doubleSignal)
		stop()
	}()
	return execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// execute runs the command line args and prints errors on stderr, once.
//
// A write to stdout that fails (a full disk, a closed pipe) fails the
// command, whichever wrote it (a command, or cobra's help, version and
// completion): exit status 1, with the error on stderr. So does a failed
// write to stderr, which then cannot be reported.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out, errOut := &checkedWriter{w: stdout}, &checkedWriter{w: stderr}
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errOut)
	cmd, err := root.ExecuteContextC(ctx)
	var code int
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(errOut, "dspalab: %s\nRun '%s --help' for usage.\n", runner.EscapeFormat(ue.err.Error()), cmd.CommandPath())
		code = runner.ExitUsage
	} else {
		if err == nil && out.err != nil {
			// a write error the command did not see (cobra's own output)
			// or did not return
			err = fmt.Errorf("writing output: %w", out.err)
		}
		runner.WriteError(errOut, err)
		code = runner.ExitCode(err)
	}
	if code == runner.ExitOK && (out.err != nil || errOut.err != nil) {
		code = runner.ExitFailure
	}
	return code
}

// checkedWriter remembers the first error of the writes to w.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage wraps an argument validator so that its errors are usage errors.
func usage(args cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := args(cmd, a); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

// needArgs is a validator of n to max arguments (max < 0: any number)
// whose errors say what is wanted in words, "scenarios show needs the
// name of a built-in scenario (dspalab scenarios lists them)", instead of
// cobra's "accepts 1 arg(s), received 0". what is the argument as the
// sentence needs it, hint where to find one ("" for none).
func needArgs(n, max int, what, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
		if hint != "" {
			hint = " (" + hint + ")"
		}
		switch {
		case len(a) < n && n == 1:
			return usagef("%s needs %s%s", name, what, hint)
		case len(a) < n:
			return usagef("%s needs %d arguments, %s%s; got %d", name, n, what, hint, len(a))
		case max >= 0 && len(a) > max && max == 1:
			return usagef("%s takes one argument, %s; got %d: %s", name, what, len(a), strings.Join(a, " "))
		case max >= 0 && len(a) > max:
			return usagef("%s takes at most %d arguments; got %d: %s", name, max, len(a), strings.Join(a, " "))
		}
		return nil
	}
}

// usagef returns a usage error.
func usagef(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}
