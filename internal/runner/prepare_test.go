package runner

import (
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// Prepare assembles the simulator's options: the queue limit (with its
// default), the actions without a final stop, which sets Until, and a
// trace opener only for a scenario with trace sources.
func TestPrepareOptions(t *testing.T) {
	sc, label, err := Load("mm1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(sc, Setup{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	o := p.Options(nil, nil)
	if o.MaxQueued != DefaultMaxQueued || o.OpenTrace != nil || o.Observer != nil || o.Actions != nil || p.Until() != sc.Duration {
		t.Errorf("defaults: MaxQueued %d, OpenTrace %v, Observer %v, Actions %v, Until %v", o.MaxQueued, o.OpenTrace != nil, o.Observer, o.Actions, p.Until())
	}
	acts := []sim.Action{{At: des.Second, AtS: 1, Kind: "failure", Vertex: "srever"}, {At: 2 * des.Second, AtS: 2, Kind: runfiles.ActionStop}}
	if _, err := Prepare(sc, Setup{Label: label, Actions: acts}); err == nil || !strings.Contains(err.Error(), `did you mean "server"`) {
		t.Errorf("an action on an unknown vertex: err = %v", err)
	}
	acts[0].Vertex = "server"
	p, err = Prepare(sc, Setup{Label: label, Limits: Limits{MaxQueued: 7}, Actions: acts})
	if err != nil {
		t.Fatal(err)
	}
	if o := p.Options(nil, nil); o.MaxQueued != 7 || len(o.Actions) != 1 || p.Until() != 2*des.Second {
		t.Errorf("MaxQueued %d, %d actions, Until %v; want 7, 1, 2s", o.MaxQueued, len(o.Actions), p.Until())
	}

	// grading's environment: the embedded sample, whatever the user's
	// registry says
	t.Setenv("DSPALAB_REGISTRY", t.TempDir()+"/missing.yaml")
	sc, label, err = Load("cluster-trace")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(sc, Setup{Label: label}); err == nil {
		t.Error("a missing user registry: no error")
	}
	p, err = Prepare(sc, Setup{Label: label, Traces: TraceEnv{Offline: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Options(nil, nil).OpenTrace == nil {
		t.Error("a trace source without a trace opener")
	}
}
