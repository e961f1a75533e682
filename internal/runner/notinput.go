package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim/scenario"
)

// OwnedNames are the names dspalab gives the files of run and sweep
// directories: runfiles.OwnedNames and the sweep's files.
func OwnedNames() []string {
	return append(runfiles.OwnedNames(), runfiles.SweepFile, runfiles.SweepManifestFile,
		runfiles.SweepPartialFile, runfiles.SweepPartialManifestFile)
}

// CheckNotInput refuses, with an *OptionError (a usage error), to write
// any of the files outs over what the command reads, inputs, before
// anything is written:
//   - an input that is a directory is a run or sweep directory, read by
//     the names dspalab gives its files (OwnedNames): an output of one of
//     those names in it would replace what the command reads, or break
//     every later command reading that directory;
//   - an input file stands for itself: an output that is the same file (os.SameFile: through a link, another spelling of its path, or
//     a name differing in case on a file system that ignores case) would
//     replace it.
//
// Names are compared without case, as a file system may. Inputs that
// cannot be read are skipped: reading them says why.
func CheckNotInput(outs, inputs []string) error {
	refuse := func(out, what string) error {
		return &OptionError{Err: fmt.Errorf("refusing to write %s: it would replace %s, which this command reads; nothing was written (name the output elsewhere)", out, what)}
	}
	type input struct {
		path string
		fi   os.FileInfo
	}
	var ins []input
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			continue
		}
		ins = append(ins, input{path: filepath.Clean(in), fi: fi})
	}
	// the same file first: the most precise message
	for _, out := range outs {
		fo, err := os.Stat(out)
		if err != nil {
			continue
		}
		for _, in := range ins {
			if !in.fi.IsDir() && os.SameFile(fo, in.fi) {
				return refuse(out, in.path)
			}
		}
	}
	for _, out := range outs {
		name := ownedName(filepath.Base(out))
		if name == "" {
			continue
		}
		pfi, err := os.Stat(filepath.Dir(out))
		if err != nil {
			continue // writing says why it cannot
		}
		for _, in := range ins {
			if in.fi.IsDir() && os.SameFile(pfi, in.fi) {
				return refuse(out, name+" of "+in.path)
			}
		}
	}
	return nil
}

// ownedName returns the name of OwnedNames that base is, without regard
// to case, or "".
func ownedName(base string) string {
	names := OwnedNames()
	if i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, base) }); i >= 0 {
		return names[i]
	}
	return ""
}

// RunOutputs are the files a run with --out dir may write or remove
// there: every name of runfiles.OwnedNames in dir and in its
// runfiles.PartialDir (an interrupted or stopped run's outputs beside a
// complete run), for CheckNotInput.
func RunOutputs(dir string) []string {
	var outs []string
	for _, d := range []string{dir, filepath.Join(dir, runfiles.PartialDir)} {
		for _, n := range runfiles.OwnedNames() {
			outs = append(outs, filepath.Join(d, n))
		}
	}
	return outs
}

// SweepOutputs are the files a sweep with --out dir may write there
// (sweep.csv, sweep.json and their partial twins), for CheckNotInput.
func SweepOutputs(dir string) []string {
	var outs []string
	for _, n := range []string{runfiles.SweepFile, runfiles.SweepManifestFile, runfiles.SweepPartialFile, runfiles.SweepPartialManifestFile} {
		outs = append(outs, filepath.Join(dir, n))
	}
	return outs
}

// ScenarioInputs are the files a run of sc (parsed under label) reads:
// the scenario file, when label is one, the files its trace sources
// replay (a file, or parts in the data set cache) and its edge-list
// files. Traces that cannot be resolved are left out (the run says why).
func ScenarioInputs(label string, sc *scenario.Scenario) []string {
	t, _ := resolveTraces(label, sc)
	return inputsOf(label, sc, t, scenarioDir(label))
}

// inputsOf is ScenarioInputs with the traces t already resolved and the
// edge-list files relative to edgeBase.
func inputsOf(label string, sc *scenario.Scenario, t *traces, edgeBase string) []string {
	var ins []string
	if fi, err := os.Stat(label); err == nil && fi.Mode().IsRegular() {
		ins = append(ins, label)
	}
	if t != nil {
		for _, s := range sc.Sources {
			rp, ok := t.replays[s.Name]
			if !ok || rp.Origin == "embedded offline sample" {
				continue
			}
			for _, f := range rp.Spec.Files {
				ins = append(ins, f.Name)
			}
		}
	}
	for _, s := range sc.Sources {
		if s.Edges != nil && s.Edges.Type == scenario.EdgesFile {
			p := s.Edges.File
			if !filepath.IsAbs(p) && edgeBase != "" {
				p = filepath.Join(edgeBase, p)
			}
			ins = append(ins, p)
		}
	}
	return ins
}
