package scenario

import "github.com/dspalab/dspalab/internal/strictyaml"

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
		if sh.QueueOver == 0 && sh.LatencyOver == 0 {
			c.errorf(p, "missing required field %q (or %q, or both): the trigger that starts the shedding", kLagOver, kLatencyOver)
		}
	}
	for i, op := range s.Operators {
		if sh := op.Shedding; sh != nil && sh.QueueOver == 0 && sh.LatencyOver == 0 {
			c.errorf(strictyaml.Index(kOperators, i)+"."+kShedding, "missing required field %q (or %q, or both): the trigger that starts the shedding", kQueueOver, kLatencyOver)
		}
	}
}
