package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The generators below are the source and operator draws of this engine,
// exported for the other engines on the same scenario format (the
// micro-batch engine, sim/microbatch), so that one workload draws the same
// arrivals, keys and service times on both.

// ArrivalProcess generates the arrival times of one source subtask on its
// own clock, from 0, as a source subtask of this engine does (constant,
// poisson, bursty and schedule; not trace).
type ArrivalProcess struct{ g *arrivalGen }

// NewArrivalProcess returns the arrivals of a, drawing from r (name the
// stream as sources do: des.StreamRand(seed, "source/NAME/SUBTASK/arrivals")).
func NewArrivalProcess(a scenario.Arrival, r *des.Rand) *ArrivalProcess {
	return &ArrivalProcess{g: newArrivalGen(a, r)}
}

// Next advances to and returns the next arrival time, or des.Never once
// the process has ended.
func (p *ArrivalProcess) Next() des.Time { return p.g.next() }

// KeyDistribution draws record keys as sources do: uniform or zipf over
// Keys.Count keys, key 0 the hottest.
type KeyDistribution struct{ d keyDist }

// NewKeyDistribution returns the distribution of k.
func NewKeyDistribution(k scenario.Keys) *KeyDistribution {
	return &KeyDistribution{d: newKeyDist(k)}
}

// Sample draws one key id in [0, Count).
func (d *KeyDistribution) Sample(r *des.Rand) uint32 { return d.d.sample(r) }

// ServiceTimes draws service times of one vertex as its subtasks do.
type ServiceTimes struct{ d serviceDist }

// NewServiceTimes returns the distribution of st.
func NewServiceTimes(st scenario.ServiceTime) *ServiceTimes {
	return &ServiceTimes{d: newServiceDist(st)}
}

// Sample draws one service time; constant draws nothing from r.
func (s *ServiceTimes) Sample(r *des.Rand) des.Time { return s.d.sample(r) }

// Constant reports whether every draw is the mean (no randomness).
func (s *ServiceTimes) Constant() bool {
	return s.d.kind == distConstant
}

// Mean is the mean service time of a constant distribution.
func (s *ServiceTimes) Mean() des.Time { return s.d.mean }

// EventDelays draws the delay between a record's event time and its
// arrival (scenario.EventDelay) as this engine's sources do: decided by a
// hash of the record id and a salt, so a replayed record keeps its event
// time.
type EventDelays struct{ d *eventDelay }

// NewEventDelays returns the delays of d for the records of one source
// (salt tells sources apart).
func NewEventDelays(d *scenario.EventDelay, salt uint64) *EventDelays {
	return &EventDelays{d: newEventDelay(d, salt)}
}

// Draw returns the delay of the record with id.
func (e *EventDelays) Draw(id uint64) des.Time { return e.d.draw(id) }
