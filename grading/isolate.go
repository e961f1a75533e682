package grading

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Defaults of Isolation.
const (
	// DefaultWorkerMemory is the memory a submission's worker process may
	// use, in bytes (address space above what the process holds when it
	// starts): 2 GiB.
	DefaultWorkerMemory = 2 << 30
	// DefaultWorkerTimeout is the wall-clock time a submission's runs (all
	// seeds) may take.
	DefaultWorkerTimeout = 10 * time.Minute
)

// Isolation runs each submission's simulations in a child process of its
// own, a worker, under a memory limit and a wall-clock limit, as course
// autograders isolate submissions: a crash, an out-of-memory (which Go
// cannot recover in process: the runtime exits) or a hang then costs that
// submission its checks, with the reason, and never the batch.
//
// The worker is a program that calls ServeWorker: dspalab's hidden
// `grade-worker` command, re-executing the dspalab binary. It receives the
// scenario, the seeds and the exercise's limits as JSON on stdin, sets its
// own memory limit first, and answers with the summaries as JSON on
// stdout.
type Isolation struct {
	// Command is the worker's command line: the program and its
	// arguments, e.g. [os.Executable(), "grade-worker"].
	Command []string
	// Env, if non-nil, is the worker's environment (default: the
	// parent's).
	Env []string
	// MaxMemory bounds the worker's memory in bytes (default
	// DefaultWorkerMemory): on Linux its address space, through
	// setrlimit(RLIMIT_AS) on itself at start, above what it holds then;
	// the Go runtime's memory limit is set a little below it, so that the
	// collector works harder before the hard limit. Elsewhere only the
	// soft limit of the runtime applies.
	MaxMemory int64
	// Timeout bounds the wall-clock time of a submission's runs, all
	// seeds together (default DefaultWorkerTimeout); past it the worker's
	// process group is killed.
	Timeout time.Duration
}

func (iso *Isolation) maxMemory() int64 {
	if iso.MaxMemory > 0 {
		return iso.MaxMemory
	}
	return DefaultWorkerMemory
}

func (iso *Isolation) timeout() time.Duration {
	if iso.Timeout > 0 {
		return iso.Timeout
	}
	return DefaultWorkerTimeout
}

// workerRequest is what a worker reads on stdin.
type workerRequest struct {
	Label     string   `json:"label"`
	Scenario  []byte   `json:"scenario"`
	Seeds     []uint64 `json:"seeds"`
	Spec      runSpec  `json:"spec"`
	MaxMemory int64    `json:"max_memory"`
}

// workerResponse is what a worker writes on stdout: the summary of each
// seed's run, up to the first that failed, and why it failed.
type workerResponse struct {
	Docs []json.RawMessage `json:"docs"`
	// RunError is the failed run's (*RunError: stopped early); Error a
	// failure before any run (traces that cannot be resolved).
	RunError *workerRunError `json:"run_error,omitempty"`
	Error    string          `json:"error,omitempty"`
}

type workerRunError struct {
	Seed uint64 `json:"seed"`
	Msg  string `json:"msg"`
}

// maxRequestBytes bounds a worker's request: a scenario of at most
// MaxFileBytes, base64-encoded, and a little more.
const maxRequestBytes = 2*MaxFileBytes + 1<<16

// maxResponseBytes bounds what is read of a worker's stdout.
const maxResponseBytes = 64 << 20

// ServeWorker is the worker of Isolation: it reads one request on r,
// limits its own memory, simulates the scenario on each seed, as Grade
// does in process, and writes the response on w. A run that stops early
// is an answer, not an error; the error is for a request that cannot be
// read or a response that cannot be written. dspalab's hidden
// `grade-worker` command calls it.
func ServeWorker(ctx context.Context, r io.Reader, w io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(r, maxRequestBytes+1))
	if err != nil {
		return fmt.Errorf("grading worker: reading the request: %w", err)
	}
	if len(data) > maxRequestBytes {
		return errors.New("grading worker: the request is too large")
	}
	var req workerRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return fmt.Errorf("grading worker: decoding the request: %w", err)
	}
	data = nil
	if req.MaxMemory > 0 {
		// the soft limit first: the collector runs harder as it nears
		debug.SetMemoryLimit(req.MaxMemory * 9 / 10)
		if err := limitMemory(req.MaxMemory); err != nil {
			return fmt.Errorf("grading worker: limiting memory: %w", err)
		}
	}
	docs, err := runSeeds(ctx, req.Label, req.Scenario, req.Seeds, req.Spec)
	var resp workerResponse
	var re *RunError
	switch {
	case errors.As(err, &re):
		resp.RunError = &workerRunError{Seed: re.Seed, Msg: re.Msg}
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		resp.Error = err.Error()
	}
	for _, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("grading worker: encoding a summary: %w", err)
		}
		resp.Docs = append(resp.Docs, b)
	}
	if err := json.NewEncoder(w).Encode(&resp); err != nil {
		return fmt.Errorf("grading worker: writing the response: %w", err)
	}
	return nil
}

// runSeeds simulates the scenario data (parsed under label) once per
// seed, in order, and returns the summaries; it stops at the first run
// that fails, with its error (a *RunError for a run stopped early).
func runSeeds(ctx context.Context, label string, data []byte, seeds []uint64, spec runSpec) ([]any, error) {
	docs := make([]any, 0, len(seeds))
	for _, seed := range seeds {
		sc, err := scenario.Parse(label, data)
		if err != nil {
			return docs, err
		}
		sc.Seed = seed
		doc, err := runScenario(ctx, sc, spec)
		if err != nil {
			return docs, err
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// runs simulates a submission's scenario on every grading seed: in a
// worker process with Options.Isolate, else in process. Errors are as
// runSeeds's; a worker that crashed, ran out of memory or out of time is
// an *IsolationError.
func (g *Grader) runs(ctx context.Context, label string, data []byte) ([]any, error) {
	if g.opts.Isolate == nil {
		return runSeeds(ctx, label, data, g.seeds, g.spec())
	}
	return g.runWorker(ctx, label, data)
}

// IsolationError is a submission's worker process that gave no answer:
// it crashed, ran out of memory or out of time. Like a RunError it costs
// the submission its checks, with Msg as the reason.
type IsolationError struct {
	Msg string
}

func (e *IsolationError) Error() string { return e.Msg }

// runWorker runs the seeds in a worker process (Options.Isolate).
func (g *Grader) runWorker(ctx context.Context, label string, data []byte) ([]any, error) {
	iso := g.opts.Isolate
	if len(iso.Command) == 0 {
		return nil, errors.New("grading: Isolation.Command is empty")
	}
	req, err := json.Marshal(workerRequest{Label: label, Scenario: data, Seeds: g.seeds, Spec: g.spec(), MaxMemory: iso.maxMemory()})
	if err != nil {
		return nil, fmt.Errorf("grading: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, iso.timeout())
	defer cancel()
	cmd := exec.CommandContext(wctx, iso.Command[0], iso.Command[1:]...)
	cmd.Env = iso.Env
	cmd.Stdin = bytes.NewReader(req)
	stdout := &cappedBuffer{max: maxResponseBytes}
	stderr := &cappedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	killGroup(cmd) // a worker and anything it started die together
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case wctx.Err() != nil:
		return nil, &IsolationError{Msg: fmt.Sprintf("the simulation was stopped after %s of wall-clock time, the limit per submission (--timeout); lower the rates or the duration, or the work per record",
			scenario.FormatDuration(des.Time(iso.timeout().Nanoseconds())))}
	case runErr != nil:
		return nil, &IsolationError{Msg: crashReason(runErr, stderr.Bytes(), iso.maxMemory())}
	case stdout.over:
		return nil, &IsolationError{Msg: "the simulation's worker process answered more than 64 MiB; please report it with the submission"}
	}
	var resp workerResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, &IsolationError{Msg: "the simulation's worker process gave an answer that cannot be read; please report it with the submission"}
	}
	docs := make([]any, len(resp.Docs))
	for i, b := range resp.Docs {
		if err := json.Unmarshal(b, &docs[i]); err != nil {
			return nil, &IsolationError{Msg: "the simulation's worker process gave a summary that cannot be read; please report it with the submission"}
		}
	}
	switch {
	case resp.RunError != nil:
		return docs, &RunError{Seed: resp.RunError.Seed, Msg: resp.RunError.Msg}
	case resp.Error != "":
		return docs, errors.New(resp.Error)
	case len(docs) != len(g.seeds):
		return nil, &IsolationError{Msg: fmt.Sprintf("the simulation's worker process gave %d summaries for %d seeds; please report it with the submission", len(docs), len(g.seeds))}
	}
	return docs, nil
}

// crashReason says why a worker exited without an answer: out of memory
// (the Go runtime's fatal error, or a kill by the kernel's OOM killer) or
// a crash, with the runtime's first line (never its stack trace, which
// names paths of the grading machine). Under the worker's address-space
// limit a new thread's stack may be what no longer fits: the runtime
// says "failed to create new OS thread", or, in a binary built with cgo,
// runtime/cgo says "pthread_create failed" and aborts (SIGABRT, exit
// status 2, no "fatal error:" line; runtime/cgo/gcc_linux_amd64.c and
// gcc_fatalf.c): out of memory too.
func crashReason(err error, stderr []byte, maxMemory int64) string {
	text := string(stderr)
	oom := strings.Contains(text, "out of memory") || strings.Contains(text, "cannot allocate memory") ||
		strings.Contains(text, "failed to create new OS thread") ||
		strings.Contains(text, "runtime/cgo: pthread_create failed") || strings.Contains(text, "runtime/cgo: malloc failed")
	var ee *exec.ExitError
	if errors.As(err, &ee) && killedByOOM(ee) {
		oom = true
	}
	if oom {
		return fmt.Sprintf("the simulation ran out of memory: it needs more than %s, the limit per submission (--max-memory); lower what the scenario holds at once (parallelism, buffers, keys, checkpoints in flight, topics[].partitions, sinks[].dedup.bloom_bits)",
			scenario.FormatByteSize(maxMemory))
	}
	first := ""
	for _, prefix := range []string{"fatal error: ", "panic: "} {
		for _, l := range strings.Split(text, "\n") {
			if first == "" && strings.HasPrefix(l, prefix) {
				first = strings.TrimSpace(l)
			}
		}
	}
	if len(first) > 200 {
		first = first[:200] + "..."
	}
	status := err.Error()
	if errors.As(err, &ee) {
		status = ee.ProcessState.String()
	}
	msg := "the simulation crashed (" + status
	if first != "" {
		msg += ": " + first
	}
	return msg + "); please report it with the submission"
}

// cappedBuffer keeps the first max bytes written to it and drops the
// rest, remembering that it did.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *cappedBuffer) Bytes() []byte { return c.buf.Bytes() }

// WorkerCommand returns the command line of dspalab's own worker: this
// executable with the hidden grade-worker command.
func WorkerCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("grading: finding dspalab's executable for the worker processes: %w", err)
	}
	return []string{exe, WorkerCommandName}, nil
}

// WorkerCommandName is the hidden dspalab command that calls ServeWorker.
const WorkerCommandName = "grade-worker"
