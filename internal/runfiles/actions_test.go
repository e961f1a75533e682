package runfiles

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

func TestReadActions(t *testing.T) {
	in := `{"time_s":12.5,"action":"failure","vertex":"parse","subtask":0}

{"time_s":30,"action":"failure","vertex":"parse","subtask":1,"worker":true}
  {"time_s":0,"action":"checkpoint","subtask":0}
`
	got, err := ReadActions(strings.NewReader(in), "a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Action{
		{At: 12500 * des.Millisecond, AtS: 12.5, Kind: sim.ActionFailure, Vertex: "parse"},
		{At: 30 * des.Second, AtS: 30, Kind: sim.ActionFailure, Vertex: "parse", Subtask: 1, Worker: true},
		{Kind: sim.ActionCheckpoint},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("action %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}

	// written back, they read the same
	var b bytes.Buffer
	if err := WriteActions(&b, got); err != nil {
		t.Fatal(err)
	}
	written := b.String()
	again, err := ReadActions(&b, "b.jsonl")
	if err != nil || len(again) != len(got) {
		t.Fatalf("read back %+v, %v", again, err)
	}
	for i := range got {
		if again[i] != got[i] {
			t.Errorf("action %d read back as %+v, want %+v", i+1, again[i], got[i])
		}
	}
	if first, _, _ := strings.Cut(written, "\n"); first != `{"time_s":12.5,"action":"failure","vertex":"parse","subtask":0}` {
		t.Errorf("written as %s", first)
	}

	if empty, err := ReadActions(strings.NewReader("\n\n"), "e.jsonl"); err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("an empty file: %#v, %v; want an empty, non-nil slice", empty, err)
	}

	for _, tc := range []struct{ in, want string }{
		{`{"time_s":1,"action":"checkpoint"}` + "\nnope\n", "x.jsonl:2: not a JSON object: "},
		{`{"time_s":1,"action":"checkpoint","when":3}`, `x.jsonl:1: not an action: json: unknown field "when"`},
		{`{"time_s":1,"action":"reboot"}`, `x.jsonl:1: unknown action "reboot" (want failure, checkpoint or stop)`},
		{`{"action":"checkpoint"}`, `x.jsonl:1: missing "time_s"`},
		{`{"time_s":1}`, `x.jsonl:1: missing "action"`},
		{`{"time_s":-1,"action":"checkpoint"}`, "x.jsonl:1: time_s must be a number of simulated seconds >= 0, got -1"},
		{`{"time_s":"soon","action":"checkpoint"}`, "x.jsonl:1: not an action: "},
		{`{"time_s":1,"action":"failure","vertex":"a","subtask":-2}`, "x.jsonl:1: subtask must be >= 0, got -2"},
		{`{"time_s":1,"action":"failure"}`, "x.jsonl:1: a failure needs a vertex"},
		{`[1,2]`, "x.jsonl:1: not a JSON object: "},
		{strings.Repeat("x", maxActionLine+1), "x.jsonl:1: line longer than 65536 bytes"},
	} {
		_, err := ReadActions(strings.NewReader(tc.in), "x.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ReadActions(%.40q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
