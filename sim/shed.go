package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Load shedding at a replayable source (scenario.Shedding; Tatbul et al.,
// "Load Shedding in a Data Stream Manager", VLDB 2003): while the
// source's lag is above lag_over records, each record it reads is shed at
// random (decided by a hash of its id, so a replay sheds the same
// records) or by its key (keys keep_keys and above). A shed record is
// read and skipped: its offset is passed, it is never emitted, and it is
// counted in delivery.shed, apart from lost records.

// shedSalt seeds the random shedding decision.
const shedSalt = 0x5eed5eed5eed5eed

// sheds decides whether r, just read at now, is shed, and if so passes
// it: the caller drops it from the output.
func (src *source) sheds(now des.Time, r *Record) bool {
	sh := src.shedding
	if src.lag(now) <= uint64(sh.LagOver) {
		return false
	}
	switch sh.Mode {
	case scenario.SheddingSemantic:
		if int(r.Key) < sh.KeepKeys {
			return false
		}
	default:
		if unitFloat(mix64(r.ID^shedSalt)) >= sh.Probability {
			return false
		}
	}
	if src.next > src.maxOffset {
		src.maxOffset = src.next
		src.shed++
	}
	if src.mode == srcLog {
		src.draw()
	}
	return true
}
