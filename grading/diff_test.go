package grading

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/sim/scenario"
)

func TestChanges(t *testing.T) {
	base := `name: t
seed: 1
x-anchors: {a: 1}
duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: work
    input: src
    parallelism: 1
sinks:
  - name: out
    input: work
`
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"same", base, base, nil},
		{"seed, x- fields and number forms are ignored", base,
			"name: t\nseed: 7\nx-other: [1, 2]\nduration: 10s\nsources:\n  - name: src\n    arrival: {process: constant, rate: 10/s}\noperators:\n  - {name: work, input: src, parallelism: 1.0}\nsinks:\n  - name: out\n    input: work\n", nil},
		{"changed", base, replace(t, base, "parallelism: 1", "parallelism: 3"), []string{"operators[0].parallelism: 1 -> 3"}},
		{"added subtree", base, base + "checkpoint:\n  mode: aligned\n  storage: {bandwidth: 1Gbit/s}\n",
			[]string{"checkpoint.mode: -> aligned", "checkpoint.storage.bandwidth: -> 1Gbit/s"}},
		{"removed", replace(t, base, "parallelism: 1", "parallelism: 2"), replace(t, base, "    parallelism: 1\n", ""), []string{"operators[0].parallelism (removed): 2 ->"}},
		// the same scenario written otherwise: values compared as the
		// format reads them (units, defaults)
		{"units", base, replace(t, replace(t, base, "rate: 10/s", "rate: 600/min"), "duration: 10s", "duration: 10000ms"), nil},
		{"explicit default", base, replace(t, base, "    parallelism: 1\n", "    parallelism: 1\n    selectivity: 1.0\n"), nil},
		{"default removed", base, replace(t, base, "    parallelism: 1\n", ""), nil},
		{"other units, other value", base, replace(t, base, "rate: 10/s", "rate: 601/min"), []string{"sources[0].arrival.rate: 10/s -> 601/min"}},
		{"not the default", base, replace(t, base, "    parallelism: 1\n", "    parallelism: 1\n    selectivity: 2\n"), []string{"operators[0].selectivity: -> 2"}},
		{"shape", base, replace(t, base, "arrival: {process: constant, rate: 10/s}", "arrival: constant"), []string{"sources[0].arrival"}},
		// vertices are matched by name: another order is the same job
		{"reordered", base + "  - name: log\n    input: work\n",
			replace(t, base, "sinks:\n  - name: out\n    input: work\n", "sinks:\n  - name: log\n    input: work\n  - name: out\n    input: work\n"), nil},
		{"reordered and changed", base + "  - name: log\n    input: work\n",
			replace(t, base, "sinks:\n  - name: out\n    input: work\n", "sinks:\n  - name: log\n    input: src\n  - name: out\n    input: work\n"), []string{"sinks[1].input: work -> src (at sinks[0].input)"}},
		{"named element added", base, base + "  - name: log\n    input: work\n", []string{"sinks[*].name: -> log (at sinks[1].name)", "sinks[*].input: -> work (at sinks[1].input)"}},
		{"named element removed", base + "  - name: log\n    input: work\n", base, []string{"sinks[1].name (removed): log ->", "sinks[1].input (removed): work ->"}},
		{"renamed", base, replace(t, base, "name: out", "name: result"), []string{"sinks[0].name (removed): out ->", "sinks[0].input (removed): work ->", "sinks[*].name: -> result (at sinks[0].name)", "sinks[*].input: -> work (at sinks[0].input)"}},
		{"merge keys", base, "x-src: &s {name: src, arrival: {process: constant, rate: 10/s}}\n" + replace(t, base, "  - name: src\n    arrival: {process: constant, rate: 10/s}\n", "  - <<: *s\n"), nil},
	} {
		a, err := parseTree([]byte(tc.from))
		if err != nil {
			t.Fatal(err)
		}
		b, err := parseTree([]byte(tc.to))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range changes(a, b) {
			s := exercises.FormatPath(c.path)
			if c.removed {
				s += " (removed)"
			}
			if c.was != "" || c.now != "" {
				s += ": " + strings.TrimSpace(c.was+" -> "+c.now)
			}
			if at := exercises.FormatPath(c.at); c.at != nil && at != exercises.FormatPath(c.path) {
				s += " (at " + at + ")"
			}
			if c.removed == (c.at != nil) {
				s += " (at set wrong)"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}

	// the element's name travels with its index, for [name] patterns
	a, _ := parseTree([]byte(base))
	b, _ := parseTree([]byte(replace(t, base, "parallelism: 1", "parallelism: 2")))
	c := changes(a, b)
	p, _ := exercises.ParsePattern("operators[work].parallelism")
	q, _ := exercises.ParsePattern("operators[other]")
	if len(c) != 1 || !p.Match(c[0].path) || q.Match(c[0].path) {
		t.Errorf("named patterns: %v", c)
	}

	// a vertex the starter does not have is not the starter's [N]: only
	// [*], [name] or the list itself let it in
	b, _ = parseTree([]byte(replace(t, base, "sinks:\n", "  - name: extra\n    input: work\nsinks:\n")))
	c = changes(a, b)
	for _, pat := range []string{"operators[1]", "operators[*]", "operators[extra]", "operators"} {
		p, _ := exercises.ParsePattern(pat)
		if want := pat != "operators[1]"; len(c) != 2 || p.Match(c[0].path) != want || p.Match(c[1].path) != want {
			t.Errorf("an added operator against %s: match %v, want %v (%v)", pat, !want, want, c)
		}
	}
}

// TestDescribeChange checks the feedback's words for a forbidden change:
// where it is, and what the starter has against the submission.
func TestDescribeChange(t *testing.T) {
	starter := "name: t\nduration: 10s\nwarmup: 2s\nsources:\n  - {name: src, arrival: {process: constant, rate: 10/s}}\nsinks:\n  - {name: out, input: src}\n"
	for _, tc := range []struct{ name, to, want string }{
		{"changed", replace(t, starter, "rate: 10/s", "rate: 20/s"), "sources[src].arrival.rate (t.yaml:5:52; 10/s in the starter, 20/s here)"},
		{"added", replace(t, starter, "input: src}", "input: src, parallelism: 2}"), "sinks[out].parallelism (t.yaml:7:42; added: 2, not in the starter)"},
		{"removed", replace(t, starter, "warmup: 2s\n", ""), "warmup (removed; the starter has 2s)"},
		{"quoted", replace(t, starter, "name: t\n", "name: \"a b\"\n"), `name (t.yaml:1:7; t in the starter, "a b" here)`},
	} {
		a, _ := parseTree([]byte(starter))
		b, _ := parseTree([]byte(tc.to))
		sub, err := scenario.Parse("t.yaml", []byte(tc.to))
		if err != nil {
			t.Fatal(err)
		}
		c := changes(a, b)
		if len(c) != 1 {
			t.Fatalf("%s: %d changes, want 1", tc.name, len(c))
		}
		if got := describeChange(c[0], sub, "t.yaml"); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A vertex is named, not numbered, in the feedback: with parse removed
// and enrich moved up to its index, the removed fields and the changed
// ones would otherwise both say operators[0].
func TestDescribeChangeNamesVertices(t *testing.T) {
	starter := "name: t\nduration: 10s\nsources:\n  - {name: src, arrival: {process: constant, rate: 10/s}}\noperators:\n  - {name: parse, input: src, service_time: {distribution: constant, mean: 1ms}}\n  - {name: enrich, input: parse, service_time: {distribution: constant, mean: 1ms}}\nsinks:\n  - {name: out, input: enrich}\n"
	to := replace(t, replace(t, starter, "  - {name: parse, input: src, service_time: {distribution: constant, mean: 1ms}}\n", ""), "input: parse,", "input: src,")
	a, _ := parseTree([]byte(starter))
	b, _ := parseTree([]byte(to))
	sub, err := scenario.Parse("t.yaml", []byte(to))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes(a, b) {
		got = append(got, describeChange(c, sub, "t.yaml"))
	}
	want := []string{
		"operators[parse].name (removed; the starter has parse)",
		"operators[parse].input (removed; the starter has src)",
		"operators[parse].service_time.mean (removed; the starter has 1ms)",
		"operators[enrich].input (t.yaml:6:27; parse in the starter, src here)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestSanitizeID(t *testing.T) {
	for in, want := range map[string]string{
		"alice":                             "alice",
		"Bob Smith":                         "Bob_Smith",
		`..\..\etc\passwd`:                  "etc_passwd",
		"../../x":                           "x",
		"...":                               "submission",
		"-rf":                               "rf",
		"a..b":                              "a_b",
		"=cmd|' /C calc'!A0":                "cmd_C_calc_A0",
		"ünïcode":                           "ünïcode",
		"e\u0301mile":                       "émile", // decomposed (macOS) and composed are one id
		"Zoë Ng":                            "Zoë_Ng",
		"李雷":                                "李雷",
		"evil\u202etxt.exe":                 "evil_txt.exe",
		"ä" + strings.Repeat("é", 60):       "ä" + strings.Repeat("é", 49), // 100 bytes, not a cut character
		strings.Repeat("a", 99) + "q\u0301": strings.Repeat("a", 99),       // not q without its accent
		strings.Repeat("क्षि", 20):          strings.Repeat("क्षि", 8),     // 96 bytes: the 9th would not fit whole
		"aaaaa" + strings.Repeat("क्षि", 20): "aaaaa" + strings.Repeat("क्षि", 7), // not क् (a dangling virama) before ष
		strings.Repeat("a", 98) + "_-xyz":    strings.Repeat("a", 98),             // no '_' or '-' left at the cut
		"":                                   "submission",
		".hidden":                            "hidden",
		"x\x00y\ny":                          "x_y_y",
	} {
		if got := SanitizeID(in); got != want {
			t.Errorf("SanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/good/scenario.yaml", "x")
	write(t, dir+"/Good.yml", "x")
	write(t, dir+"/notes.txt", "x")
	subs, err := Collect([]string{dir + "/good/scenario.yaml", dir + "/good", dir + "/Good.yml"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.ID)
	}
	// the same name twice: told apart by the path; Good by its name
	if len(ids) != 3 || ids[0] == ids[1] || !strings.HasPrefix(ids[0], "good--") || !strings.HasPrefix(ids[1], "good--") || ids[2] != "Good--c939327c" {
		t.Errorf("ids %q, want good--HASH twice (of the paths) and Good--c939327c", ids)
	}
	if _, err := Collect([]string{dir + "/notes.txt"}); err == nil {
		t.Error("a .txt file is a submission")
	}
	// a folder of submissions: its sub-directories and .yaml files
	subs, err = Collect([]string{dir})
	if err != nil || len(subs) != 2 || subs[0].Path != dir+"/Good.yml" || subs[1].Path != dir+"/good" {
		t.Errorf("expanded %v %v", subs, err)
	}
	// the same file three ways, and inside its folder: graded once, in
	// its first place (Good and good clash without regard to case)
	subs, err = Collect([]string{dir + "/Good.yml", dir + "/Good.yml", dir + "/./Good.yml", dir})
	if err != nil || len(subs) != 2 || subs[0].ID != "Good--c939327c" || subs[0].Path != dir+"/Good.yml" || subs[1].Path != dir+"/good" {
		t.Errorf("the same file given 3 times and in its folder: %+v %v", subs, err)
	}
	// what an earlier grade wrote into another --out is not a student
	write(t, dir+"/grades/"+GradesFile, "id,points\n")
	write(t, dir+"/grades/"+FeedbackDir+"/good.md", "x")
	subs, err = Collect([]string{dir})
	if err != nil || len(subs) != 2 {
		t.Errorf("with an earlier grade's folder: %+v %v", subs, err)
	}
	subs, err = Collect([]string{dir + "/grades", dir + "/good"})
	if err != nil || len(subs) != 1 || subs[0].Path != dir+"/good" {
		t.Errorf("an earlier grade's folder given by the shell: %+v %v", subs, err)
	}
}

// TestUniqueIDsFitTheLimit: two long names that clash after the cut get
// suffixes inside the 100 bytes, cut before a whole character.
func TestUniqueIDsFitTheLimit(t *testing.T) {
	subs := []Submission{{ID: strings.Repeat("日", 80)}, {ID: strings.Repeat("日", 79) + "本"}}
	uniqueIDs(subs)
	for _, s := range subs {
		if len(s.ID) > maxIDBytes || !utf8.ValidString(s.ID) || !strings.HasPrefix(s.ID, strings.Repeat("日", 30)+"--") {
			t.Errorf("id %q (%d bytes): want at most %d, valid UTF-8, 30 × 日 (90 bytes) then the 10 of the suffix", s.ID, len(s.ID), maxIDBytes)
		}
	}
	if subs[0].ID == subs[1].ID {
		t.Errorf("both ids are %q", subs[0].ID)
	}
}

// TestCSVPath: a source path as a grades.csv cell shows what it holds: a
// bidi override is written out, a formula gets "./" in front.
func TestCSVPath(t *testing.T) {
	for in, want := range map[string]string{
		"subs/ab\u202ecod.exe": `subs/ab\u202ecod.exe`,
		"=cmd":                 "./=cmd",
		"subs/émile":           "subs/émile",
		"a\u200bb":             `a\u200bb`,
	} {
		if got := csvPath(in); got != filepath.FromSlash(want) && got != want {
			t.Errorf("csvPath(%q) = %q, want %q", in, got, want)
		}
	}
}
