// Package exercises reads exercise packs: a folder per exercise holding
// exercise.yaml (what the student may change, the limits, the grading seeds,
// the checks on the summary metrics and the questions), README.md (the
// instructions, rendered in the terminal by exercises/render) and starter.yaml (the
// scenario the student starts from), and optionally solution.yaml and
// wrong*.yaml (instructor-only: the reference solution and typical wrong
// answers, never copied to students).
//
// The built-in pack is embedded from exercises/builtin/ (Builtin); an
// instructor's own pack is a directory on disk (OpenDir) or any fs.FS
// (Load). Loading decodes every exercise.yaml strictly, like sim/scenario
// decodes scenarios: unknown fields, wrong types and invalid values are
// scenario.Error values located as file:line:col with the field path and a
// did-you-mean (scenario.Nearest). It also validates the pack: ids unique
// and equal to their folder names, the starter (and solution, wrong
// answers) parse as scenarios, every check's and question's metric path
// exists in a summary (sim.Summary, summary.json), every editable pattern
// names fields of the scenario format, and hidden seeds only in an
// instructor's pack.
//
// Grading (package grading) runs the submissions; this package only reads
// and checks the packs; package exercises/render prints their instructions.
package exercises

import (
	"io/fs"
	"strconv"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/scenario"
)

// File names inside an exercise folder.
const (
	ExerciseFile = "exercise.yaml"
	ReadmeFile   = "README.md"
	// DefaultStarter is the starter scenario when exercise.yaml names
	// none.
	DefaultStarter = "starter.yaml"
	// SolutionFile is the instructor's reference solution (optional).
	SolutionFile = "solution.yaml"
)

// Defaults of exercise.yaml.
const (
	// DefaultMaxEvents is the kernel events one grading run may fire
	// (limits.max_events): past it the run is stopped and its checks get 0.
	DefaultMaxEvents = 5e7
	// DefaultTolerance is the relative tolerance of a numeric answer (1%).
	DefaultTolerance = 0.01
)

// Aggregations of a check over the grading seeds (Check.Over).
const (
	OverAll  = "all"  // every seed must pass (default)
	OverMean = "mean" // the mean of the metric over the seeds must pass
	OverMin  = "min"
	OverMax  = "max"
)

// Where a question's truth is measured (Truth.Run).
const (
	RunStarter    = "starter"    // the starter scenario (default)
	RunSubmission = "submission" // the student's scenario
)

// Ops are the comparison operators of a check; strings are compared only
// with == and !=.
var Ops = []string{">=", "<=", ">", "<", "==", "!="}

// Exercise is one exercise of a pack: its exercise.yaml, decoded, and the
// way to its files.
type Exercise struct {
	// ID is the exercise's name, [a-z0-9-]+, equal to its folder name.
	ID string
	// Title is one line; Topics and Goals (learning goals, one line each)
	// describe it in listings.
	Title  string
	Topics []string
	Goals  []string
	// Starter is the starter scenario's file name in the folder
	// (default starter.yaml).
	Starter string
	// Editable are the scenario field paths the student may change, as
	// patterns (see Pattern): "operators[*].parallelism".
	Editable []string
	// Limits bound what a submission may use.
	Limits Limits
	// Seeds are the grading seeds (default [1]): each submission runs
	// once per seed, the scenario's seed replaced by it.
	Seeds []uint64
	// HiddenSeeds are further grading seeds used by `dspalab grade`
	// only, never by `dspalab exercise check` and never shown to
	// students. Only an instructor's pack may have them.
	HiddenSeeds []uint64
	// Checks are evaluated on the summaries of the grading runs.
	Checks []Check
	// Questions are answered in answers.yaml of the submission.
	Questions []Question

	// Dir is the exercise's folder in the pack's file system.
	Dir string
	// File is the name exercise.yaml was parsed under (for messages):
	// the pack's name joined with Dir and exercise.yaml.
	File string

	pack     *Pack
	patterns []Pattern
	// patternIndex is the index in Editable of each of patterns.
	patternIndex []int
	pos          map[string]strictyaml.Position
	bad          map[string]bool // paths of exercise.yaml with a decoding error
}

// Limits bound what a submission may use.
type Limits struct {
	// TotalParallelism, if positive, bounds the sum of the parallelism of
	// all vertices.
	TotalParallelism int
	// MaxEvents bounds the kernel events of one grading run (default
	// DefaultMaxEvents); past it the run is stopped and the checks get 0.
	MaxEvents int64
}

// Check is a condition on a metric of the summaries of the grading runs,
// worth Points when it holds.
type Check struct {
	// ID is [a-z0-9-]+, unique among the checks and questions.
	ID string
	// Metric is a path into summary.json (see ParseMetric):
	// "vertices[out].in_rate_rps".
	Metric string
	// Op is one of Ops; Value the threshold (a string only with == and
	// !=).
	Op    string
	Value Value
	// Over aggregates the metric over the seeds: OverAll (default: every
	// seed must pass), OverMean, OverMin or OverMax.
	Over   string
	Points float64
	// Pass and Fail are the feedback texts (optional). In them {value}
	// stands for the measured value (aggregated) and {want} for the
	// threshold.
	Pass, Fail string
}

// Question is asked in the README and answered in answers.yaml: a choice
// (Choices not empty) or a number, compared with the simulated truth.
type Question struct {
	// ID is [a-z0-9-]+, unique among the checks and questions: the key
	// of the answer in answers.yaml.
	ID   string
	Text string
	// Choices, if not empty, make a multiple-choice question: the answer
	// must be one of them, and is right when it equals the truth.
	Choices []string
	Truth   Truth
	// Tolerance of a numeric answer (default 1% relative).
	Tolerance Tolerance
	Points    float64
}

// Truth says where the right answer of a question is measured: Metric (a
// path into summary.json) on the first grading seed of the run Run
// (RunStarter, the default, or RunSubmission).
type Truth struct {
	Metric string
	Run    string
}

// Tolerance is how far a numeric answer may be from the truth: Relative
// (a fraction of the truth, "5%" is 0.05) or absolute (Value).
type Tolerance struct {
	Value    float64
	Relative bool
}

// String formats t as in exercise.yaml: "5%" or "0.5".
func (t Tolerance) String() string {
	if t.Relative {
		return FormatNumber(t.Value*100) + "%"
	}
	return FormatNumber(t.Value)
}

// Within reports whether answer is within t of truth.
func (t Tolerance) Within(answer, truth float64) bool {
	d := answer - truth
	if d < 0 {
		d = -d
	}
	if t.Relative {
		m := truth
		if m < 0 {
			m = -m
		}
		return d <= t.Value*m+1e-12
	}
	return d <= t.Value+1e-12
}

// Value is a check's threshold: a number, or a string (a YAML boolean is
// the string "true" or "false").
type Value struct {
	Num   float64
	Str   string
	IsNum bool
}

// String formats v as a number (FormatNumber) or the string.
func (v Value) String() string {
	if v.IsNum {
		return FormatNumber(v.Num)
	}
	return v.Str
}

// FormatNumber formats x for feedback: integers as such, others with at
// most 3 decimals (at least 3 significant digits), no exponent below 1e15.
func FormatNumber(x float64) string {
	ax := x
	if ax < 0 {
		ax = -ax
	}
	switch {
	case ax == 0:
		return "0"
	case ax >= 1e15:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case ax >= 1:
		return strconv.FormatFloat(roundTo(x, 3), 'f', -1, 64)
	default:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
}

// roundTo rounds x to d decimals.
func roundTo(x float64, d int) float64 {
	s := strconv.FormatFloat(x, 'f', d, 64)
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// Pack is a set of exercises: the built-in pack or an instructor's.
type Pack struct {
	// Name names the pack in messages: "built-in" or the directory.
	Name string
	// FS holds one folder per exercise.
	FS fs.FS
	// Dir is the pack's directory on disk ("" for the built-in pack):
	// file traces of its scenarios are read relative to their exercise's
	// folder there.
	Dir string
	// Builtin is true for the embedded pack, which may not have hidden
	// seeds.
	Builtin bool

	exercises []*Exercise // sorted by ID
}

// errorAt returns an error located at the field path of exercise.yaml.
func (e *Exercise) errorAt(path, format string, args ...any) *scenario.Error {
	err := &scenario.Error{File: e.File, Path: path}
	err.Msg = sprintf(format, args...)
	if pos, ok := strictyaml.Lookup(e.pos, path); ok {
		err.Line, err.Col = pos.Line, pos.Col
	}
	return err
}
