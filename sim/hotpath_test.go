package sim

import (
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// A job where no edge hashes and no operator keeps state reads no key, so
// its sources draw none: their key streams stay where they started. A job
// with a keyBy draws one key per record from that stream.
func TestKeysDrawnOnlyWhenRead(t *testing.T) {
	for _, c := range []struct {
		name string
		read bool
	}{{"tandem", false}, {"backpressure", false}, {"sensors-1000", true}} {
		sc := mustLoadBuiltin(t, c.name)
		sc.Duration, sc.Warmup = 30*des.Second, 0
		s, res := runSim(t, sc, Options{})
		if res.Summary.Totals.Delivered == 0 {
			t.Fatalf("%s: nothing delivered", c.name)
		}
		for _, src := range s.sources {
			moved := *src.keyPCG != src.initial.keyPCG
			if (src.keys != nil) != c.read || moved != c.read {
				t.Errorf("%s source %s/%d: key distribution set %v, key stream moved %v; want both %v",
					c.name, src.t.v.name, src.t.index, src.keys != nil, moved, c.read)
			}
		}
	}
}
