package scenario

import (
	"strings"

	"github.com/dspalab/dspalab/internal/strictyaml"
)

// shedding checks the load shedding of the sources and operators: a
// source sheds records of a log (it is replayable), and each shedding
// has a trigger: lag_over (a source) or queue_over (an operator), or
// latency_over, or both (either one holding sheds).
func (c *checker) shedding() {
	s := c.s
	for i, src := range s.Sources {
		sh := src.Shedding
		if sh == nil {
			continue
		}
		p := strictyaml.Index(kSources, i) + "." + kShedding
		if !src.Replayable && !src.ReadsTopic() {
			c.errorf(p, "shedding skips records of a log: the source must be replayable (a socket source drops with on_backpressure: drop)")
		}
		if sh.QueueOver == 0 && sh.LatencyOver == 0 && !c.reportedInside(p) {
			c.errorf(p, "missing required field %q (or %q, or both): the trigger that starts the shedding", kLagOver, kLatencyOver)
		}
		if n := src.Keys.Count; sh.Mode == SheddingSemantic && !src.ReadsTopic() && n > 0 && sh.KeepKeys >= n {
			c.errorf(p+"."+kKeepKeys, "%d keeps every key: the source draws %d (%s.%s), so nothing would be shed; keep_keys must be below %d",
				sh.KeepKeys, n, kKeys, kCount, n)
		}
	}
	for i, op := range s.Operators {
		p := strictyaml.Index(kOperators, i) + "." + kShedding
		if sh := op.Shedding; sh != nil && sh.QueueOver == 0 && sh.LatencyOver == 0 && !c.reportedInside(p) {
			c.errorf(p, "missing required field %q (or %q, or both): the trigger that starts the shedding", kQueueOver, kLatencyOver)
		}
	}
}

// reportedInside reports whether a field inside path was already
// reported (a trigger with a bad value or a misspelt name): then the
// trigger is not missing, it is wrong, and that error says so.
func (c *checker) reportedInside(path string) bool {
	pre := path + "."
	for _, m := range []map[string]bool{c.bad, c.reported} {
		for p := range m {
			if strings.HasPrefix(p, pre) {
				return true
			}
		}
	}
	return false
}
