package sim

import "github.com/dspalab/dspalab/sim/des"

// storage is the checkpoint storage: uploads and downloads queue for its
// bandwidth one after another, each then takes its latency. An outage
// holds transfers that would start inside it until it ends.
type storage struct {
	bw      float64 // bytes per simulated second
	latency des.Time
	free    des.Time
	outages [][2]des.Time
}

// transfer returns when n bytes handed over at now have been stored (or
// read back).
func (st *storage) transfer(now des.Time, n int64) des.Time {
	start := max(now, st.free)
	for _, o := range st.outages {
		if start >= o[0] && start < o[1] {
			start = o[1]
		}
	}
	st.free = addNs(start, float64(n)/st.bw*float64(des.Second))
	return addNs(st.free, float64(st.latency))
}
