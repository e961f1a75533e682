package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// A consumer group (plan.ConsumerGroup) is a group of plain Kafka
// consumers outside the job, as KafkaConsumer and its ConsumerCoordinator
// (AbstractCoordinator) run one with the eager protocol:
//
//   - The members share the topic's partitions by RangeAssignor
//     (kafka.RangeAssign over their member ids "<group>-<i>"). A
//     member's poll returns at most max.poll.records of the records of
//     its partitions readable then (the earliest readable first); it
//     processes them one after the other, each for its service time,
//     and polls again (at once when more are readable, else when the
//     next one is).
//   - Auto-commit (enable.auto.commit): a poll commits the member's
//     positions once auto.commit.interval.ms passed since its last
//     commit (ConsumerCoordinator.maybeAutoCommitOffsetsAsync, the timer
//     reset to now + interval); the positions are the records processed,
//     since every record a poll returned was processed before the next.
//   - Heartbeats every heartbeat.interval.ms from the member's start
//     (the heartbeat thread). A member that fails sends no LeaveGroup:
//     the coordinator removes it session.timeout.ms after its last
//     heartbeat, and the group starts a rebalance.
//   - Each survivor hears of the rebalance at its next heartbeat
//     (REBALANCE_IN_PROGRESS), and at its next poll (after the record in
//     hand) commits its positions synchronously and revokes all its
//     partitions (onJoinPrepare), then sends JoinGroup and stops. When
//     every survivor has joined, the leader assigns the partitions by
//     RangeAssignor (SyncGroup) and every member resumes from the
//     committed offsets of its new partitions: on a partition of the
//     failed member, the records it processed after its last commit are
//     processed again (duplicates, counted).
//
// Each partition has a cursor of its own (a topicReader owning it alone),
// its committed offset a snapshot of that cursor.

// Events of a consumer group member (the arg of HandleEvent).
const (
	memberPoll      = iota // the record in hand is done, or a wake-up: poll
	memberHeartbeat        // the heartbeat thread's next heartbeat
	memberExpire           // the coordinator's session timer of a failed member
)

// consumerGroup is one consumer group of the run.
type consumerGroup struct {
	s  *Sim
	pg *plan.ConsumerGroup
	// per partition: the position cursor, the committed offset (nil
	// before the first commit), its owner (member index; the previous
	// owner until a rebalance assigns it) and the offsets processed (the
	// high-water mark: a record below it is a duplicate)
	cursors   []*topicReader
	committed []*topicSnap
	owner     []int
	done      []uint64
	members   []*groupMember
	// the rebalance in progress (rebalancing), its record in rebalances
	rebalancing bool
	rebalances  []GroupRebalance
	generation  int
	duplicates  uint64
	skipped     uint64
	// the group's lag at the first metrics sample at or past the middle
	// of the statistics window (midAt; -1 before it): the diagnosis's
	// measure of a lag that keeps growing
	lagMid uint64
	midAt  des.Time
}

// groupMember is one KafkaConsumer of a group.
type groupMember struct {
	g     *consumerGroup
	index int
	id    string // member id: the group's name and the index
	alive bool
	// removed: the coordinator removed it from the group (its session
	// timed out); a failed member is a member until then
	removed bool
	parts   []int // assigned partitions, ascending
	// the record in hand: its partition (-1: none) and offset; wake is
	// the scheduled poll (record end or wake-up)
	cur      int
	off      uint64
	wake     des.EventID
	busyFrom des.Time
	// the batch of the last poll: records left to return, and the poll's
	// time (it returns the records readable then)
	batchLeft int
	polledAt  des.Time
	// heard: told of the rebalance in progress; joined: revoked and sent
	// JoinGroup, waiting for the assignment (since pausedFrom)
	heard, joined bool
	pausedFrom    des.Time
	nextCommit    des.Time
	lastHeartbeat des.Time
	ivFrom        des.Time // the start of the current metrics interval
	failedAt      des.Time
	svc           serviceDist
	rng           *des.Rand
	// counts: records processed (and again), those processed at or
	// before the warmup's end (not in the statistics window, InWindow),
	// and this interval's busy and paused (down) time and records
	processed, duplicates uint64
	preProcessed          uint64
	winBusy               des.Time // busy time inside the statistics window
	ivBusy, ivDown        des.Time
	ivRecs                uint64
}

// GroupRebalance is one rebalance of a consumer group after a member
// failed (summary.json consumer_groups[].rebalances[]).
type GroupRebalance struct {
	// Generation is the group's generation after the rebalance (Kafka's
	// generationId: 1 for the first join at the start, one more for each
	// rebalance).
	Generation int `json:"generation"`
	// Member is the member that failed, FailedS when, LastHeartbeatS
	// its last heartbeat, DetectedS when the coordinator removed it
	// (last heartbeat + session.timeout.ms), CompletedS when every
	// survivor had its new assignment; PauseS = CompletedS − DetectedS
	// (both -1 while the rebalance is in progress).
	Member         string  `json:"member"`
	FailedS        float64 `json:"failed_at_s"`
	LastHeartbeatS float64 `json:"last_heartbeat_s"`
	DetectedS      float64 `json:"detected_at_s"`
	CompletedS     float64 `json:"completed_at_s"`
	PauseS         float64 `json:"pause_s"`
	// Moved are the partitions of the failed member, Assignment every
	// survivor's partitions after it (member id: partitions).
	Moved      []int            `json:"moved_partitions"`
	Assignment map[string][]int `json:"assignment,omitempty"`
	// Duplicates are the records of the moved partitions processed
	// after their last commit, processed again after the rebalance.
	Duplicates uint64 `json:"duplicates"`
	// AlsoRemoved are the failed members whose sessions expired while
	// this rebalance waited for them: one rebalance, their partitions in
	// Moved too.
	AlsoRemoved []RemovedMember `json:"also_removed,omitempty"`
}

// RemovedMember is a failed member removed during a rebalance in
// progress: when it failed, when the coordinator removed it, and the
// partitions it held.
type RemovedMember struct {
	Member     string  `json:"member"`
	FailedS    float64 `json:"failed_at_s"`
	DetectedS  float64 `json:"detected_at_s"`
	Partitions []int   `json:"partitions"`
}

func (m *groupMember) HandleEvent(now des.Time, arg int64) {
	switch arg {
	case memberPoll:
		m.wake = 0
		if m.cur >= 0 {
			m.finish(now)
		}
		if m.batchLeft > 0 && m.take(now) {
			return
		}
		m.poll(now)
	case memberHeartbeat:
		m.heartbeat(now)
	case memberExpire:
		m.g.expire(now, m)
	}
}

// newConsumerGroup starts group pg at time 0 with every member joined
// and the range assignment.
func (s *Sim) newConsumerGroup(pg *plan.ConsumerGroup) *consumerGroup {
	tp := pg.Topic
	g := &consumerGroup{s: s, pg: pg, cursors: make([]*topicReader, tp.Partitions), committed: make([]*topicSnap, tp.Partitions),
		owner: make([]int, tp.Partitions), done: make([]uint64, tp.Partitions),
		generation: 1, midAt: -1} // the members' first join, at the start: the group coordinator's generation 1
	keys := s.topicKeys(tp)
	for p := range tp.Partitions {
		c := newTopicReader(tp, 0, 1, s.sc.Seed, s.duration, keys, nil)
		for q := range c.owned {
			c.owned[q] = q == p
		}
		c.nOwned = 1
		c.next()
		g.cursors[p] = c
	}
	for i := range pg.Members {
		m := &groupMember{g: g, index: i, id: pg.MemberID(i), alive: true, cur: -1, svc: newServiceDist(pg.ServiceTime),
			rng: des.StreamRand(s.sc.Seed, "consumer-group/"+pg.Name+"/"+strconv.Itoa(i)), nextCommit: pg.AutoCommitInterval}
		g.members = append(g.members, m)
	}
	g.assign(0)
	for _, m := range g.members {
		s.eng.Schedule(pg.HeartbeatInterval, m, memberHeartbeat)
		m.poll(0)
	}
	return g
}

// assign gives the partitions to the live members by RangeAssignor and
// sets each partition's cursor to its committed offset (none: the log
// end, auto.offset.reset latest).
func (g *consumerGroup) assign(now des.Time) map[string][]int {
	var live []*groupMember
	var ids []string
	for _, m := range g.members {
		if m.alive {
			live = append(live, m)
			ids = append(ids, m.id)
		}
	}
	out := map[string][]int{}
	for i, ps := range kafka.RangeAssign(ids, g.pg.Topic.Partitions) {
		m := live[i]
		m.parts = ps
		out[m.id] = ps
		for _, p := range ps {
			g.owner[p] = m.index
			c := g.cursors[p]
			if sn := g.committed[p]; sn != nil {
				c.restore(sn)
				continue
			}
			for c.part >= 0 && c.vt <= now { // latest: skip what is readable now
				g.skipped++
				g.done[p] = max(g.done[p], c.position(p)+1)
				c.next()
			}
		}
	}
	for _, m := range g.members {
		if !m.alive {
			m.parts = nil
		}
	}
	return out
}

// poll is KafkaConsumer.poll: the auto-commit when due, then the next
// readable record of the member's partitions, or a wake-up when one
// becomes readable (or the commit is due).
func (m *groupMember) poll(now des.Time) {
	g := m.g
	if !m.alive || m.joined {
		return
	}
	if m.heard {
		m.join(now)
		return
	}
	if now >= m.nextCommit {
		m.commit()
		m.nextCommit = now + g.pg.AutoCommitInterval
	}
	m.batchLeft, m.polledAt = g.pg.MaxPollRecords, now
	if m.take(now) {
		return
	}
	m.batchLeft = 0
	at := m.nextCommit
	if best := m.head(); best >= 0 {
		at = min(at, g.cursors[best].vt)
	}
	if at <= g.s.duration {
		m.wake, _ = g.s.eng.Schedule(at, m, memberPoll)
	}
}

// head returns the member's partition whose next record is readable
// first, -1 when none comes.
func (m *groupMember) head() int {
	best := -1
	for _, p := range m.parts {
		if c := m.g.cursors[p]; c.part >= 0 && (best < 0 || c.vt < m.g.cursors[best].vt) {
			best = p
		}
	}
	return best
}

// take starts on the next record of the last poll's batch: one readable
// at the poll. It reports false when the batch has no more.
func (m *groupMember) take(now des.Time) bool {
	g := m.g
	best := m.head()
	if best < 0 || g.cursors[best].vt > m.polledAt {
		m.batchLeft = 0
		return false
	}
	c := g.cursors[best]
	m.cur, m.off = best, c.position(best)
	c.next()
	m.batchLeft--
	m.busyFrom = now
	m.wake, _ = g.s.eng.Schedule(now+m.svc.sample(m.rng), m, memberPoll)
	return true
}

// finish ends the record in hand: processed, or processed again when
// its offset is below its partition's high-water mark.
func (m *groupMember) finish(now des.Time) {
	g := m.g
	m.addBusy(m.busyFrom, now)
	m.processed++
	if !InWindow(now, g.s.warmup) {
		m.preProcessed++
	}
	m.ivRecs++
	if p := m.cur; m.off < g.done[p] {
		m.duplicates++
		g.duplicates++
		if n := len(g.rebalances); n > 0 {
			g.rebalances[n-1].Duplicates++
		}
	} else {
		g.done[p] = m.off + 1
	}
	m.cur = -1
}

// commit commits the member's positions (its records processed).
func (m *groupMember) commit() {
	for _, p := range m.parts {
		m.g.committed[p] = m.g.cursors[p].snapshot()
	}
}

// heartbeat is the heartbeat thread's: the coordinator's session timer
// restarts, and a rebalance in progress is heard of.
func (m *groupMember) heartbeat(now des.Time) {
	if !m.alive {
		return
	}
	m.lastHeartbeat = now
	if m.g.rebalancing && !m.joined && !m.heard {
		m.heard = true
		if m.cur < 0 { // idle in poll: it rejoins now
			if m.wake != 0 {
				m.g.s.eng.Cancel(m.wake)
				m.wake = 0
			}
			m.poll(now)
		}
	}
	if next := now + m.g.pg.HeartbeatInterval; next <= m.g.s.duration {
		m.g.s.eng.Schedule(next, m, memberHeartbeat)
	}
}

// join is onJoinPrepare and JoinGroup: commit, revoke, wait.
func (m *groupMember) join(now des.Time) {
	m.commit()
	m.heard, m.joined, m.pausedFrom = false, true, now
	m.g.maybeComplete(now)
}

// fail kills member m now: no LeaveGroup, so the coordinator notices
// session.timeout.ms after its last heartbeat.
func (g *consumerGroup) fail(now des.Time, m *groupMember) {
	if !m.alive {
		g.s.emit(Event{Type: EventConsumerFailed, Vertex: g.pg.Name, Message: fmt.Sprintf("consumer %s failed again: it is down already", m.id)})
		return
	}
	if m.cur >= 0 {
		m.addBusy(m.busyFrom, now)
	}
	if m.wake != 0 {
		g.s.eng.Cancel(m.wake)
		m.wake = 0
	}
	m.alive, m.cur, m.batchLeft, m.failedAt, m.pausedFrom = false, -1, 0, now, now
	expire := m.lastHeartbeat + g.pg.SessionTimeout
	g.s.emit(Event{Type: EventConsumerFailed, Vertex: g.pg.Name, Message: fmt.Sprintf("consumer %s of group %s failed, holding %s; last heartbeat at %s, so the coordinator removes it at %s (session.timeout.ms %s)",
		m.id, g.pg.Name, partitionsText(m.parts), FormatTime(m.lastHeartbeat), FormatTime(expire), FormatTime(g.pg.SessionTimeout))})
	g.s.eng.Schedule(max(expire, now), m, memberExpire)
}

// expire is the coordinator's session timeout of failed member m: it
// leaves the group, and the group rebalances.
func (g *consumerGroup) expire(now des.Time, m *groupMember) {
	m.removed = true
	if g.rebalancing {
		// a second failed member, removed while the rebalance of the
		// first waits for it: the same rebalance (Kafka's join phase
		// drops a member whose session expires), its partitions move too
		rb := &g.rebalances[len(g.rebalances)-1]
		rb.Moved = append(rb.Moved, m.parts...)
		slices.Sort(rb.Moved)
		rb.AlsoRemoved = append(rb.AlsoRemoved, RemovedMember{Member: m.id, FailedS: secs(m.failedAt), DetectedS: secs(now), Partitions: append([]int{}, m.parts...)})
		g.s.emit(Event{Type: EventGroupRebalancing, Vertex: g.pg.Name, Message: fmt.Sprintf("group %s: consumer %s removed too (no heartbeat for session.timeout.ms %s), during the rebalance of generation %d",
			g.pg.Name, m.id, FormatTime(g.pg.SessionTimeout), g.generation)})
		g.maybeComplete(now)
		return
	}
	g.generation++
	rb := GroupRebalance{Generation: g.generation, Member: m.id, FailedS: secs(m.failedAt), LastHeartbeatS: secs(m.lastHeartbeat),
		DetectedS: secs(now), CompletedS: -1, PauseS: -1, Moved: append([]int{}, m.parts...)}
	g.rebalances = append(g.rebalances, rb)
	g.rebalancing = true
	g.s.emit(Event{Type: EventGroupRebalancing, Vertex: g.pg.Name, Message: fmt.Sprintf("group %s: consumer %s removed (no heartbeat for session.timeout.ms %s); rebalance of generation %d starts, the members stop at their next poll",
		g.pg.Name, m.id, FormatTime(g.pg.SessionTimeout), g.generation)})
	g.maybeComplete(now)
}

// maybeComplete ends the rebalance once every live member joined.
func (g *consumerGroup) maybeComplete(now des.Time) {
	if !g.rebalancing {
		return
	}
	for _, m := range g.members {
		// the live members must rejoin; a failed one still in the group
		// (its session not expired yet) holds the join phase until the
		// coordinator removes it
		if m.alive && !m.joined || !m.alive && !m.removed {
			return
		}
	}
	g.rebalancing = false
	rb := &g.rebalances[len(g.rebalances)-1]
	var committed, none []int // the moved partitions with and without a committed offset
	for _, p := range rb.Moved {
		if g.committed[p] != nil {
			committed = append(committed, p)
		} else {
			none = append(none, p)
		}
	}
	rb.Assignment = g.assign(now)
	rb.CompletedS, rb.PauseS = secs(now), round6(secs(now)-rb.DetectedS)
	var parts []string
	for _, m := range g.members {
		if !m.alive {
			continue
		}
		m.addDown(m.pausedFrom, now)
		m.joined = false
		parts = append(parts, m.id+" "+partitionsText(m.parts))
	}
	var resume []string
	if len(committed) > 0 {
		resume = append(resume, partitionsText(committed)+plural.Choose(len(committed), " resumes from its committed offset", " resume from their committed offsets"))
	}
	if len(none) > 0 {
		// a partition never committed (the member failed before its first
		// auto-commit): auto.offset.reset latest starts it at the log end
		resume = append(resume, partitionsText(none)+plural.Choose(len(none), " has", " have")+" no committed offset: auto.offset.reset latest starts "+
			plural.Choose(len(none), "it", "them")+" at the log end, skipping what the failed member had not processed")
	}
	g.s.emit(Event{Type: EventGroupRebalanced, Vertex: g.pg.Name, Message: fmt.Sprintf("group %s rebalanced (generation %d, RangeAssignor) %s after the removal: %s; %s",
		g.pg.Name, rb.Generation, FormatTime(des.FromSeconds(rb.PauseS)), strings.Join(parts, ", "), strings.Join(resume, "; "))})
	for _, m := range g.members {
		if m.alive {
			m.poll(now)
		}
	}
}

// rebalanceText is the diagnosis's line of rebalance rb of group name:
// how long the failed member's partitions (or the failed members') made
// no progress, and what was processed again.
func rebalanceText(name string, rb *GroupRebalance) string {
	if len(rb.AlsoRemoved) > 0 {
		// partitions of several members: each stalled from its own
		// member's failure to the one rebalance's end
		own := slices.DeleteFunc(slices.Clone(rb.Moved), func(p int) bool { return removedHolds(rb.AlsoRemoved, p) })
		who := []string{fmt.Sprintf("%s (failed at %s, %s)", rb.Member, FormatTime(des.FromSeconds(rb.FailedS)), partitionsText(own))}
		for _, o := range rb.AlsoRemoved {
			who = append(who, fmt.Sprintf("%s (failed at %s, %s, removed at %s while the rebalance waited for it)", o.Member, FormatTime(des.FromSeconds(o.FailedS)), partitionsText(o.Partitions), FormatTime(des.FromSeconds(o.DetectedS))))
		}
		line := fmt.Sprintf("consumers %s of group %s failed: their partitions made no progress", strings.Join(who, " and "), name)
		if rb.CompletedS < 0 {
			return line + " until the end: the group is still rebalancing"
		}
		return line + fmt.Sprintf(" until the rebalance completed at %s, and %s processed after their last commits were processed again",
			FormatTime(des.FromSeconds(rb.CompletedS)), plural.Count(int64(rb.Duplicates), "record"))
	}
	line := fmt.Sprintf("consumer %s of group %s failed at %s: its %s made no progress", rb.Member, name,
		FormatTime(des.FromSeconds(rb.FailedS)), partitionsText(rb.Moved))
	if rb.CompletedS < 0 {
		return line + " until the end: the group is still rebalancing"
	}
	return line + fmt.Sprintf(" for %s (session.timeout.ms after its last heartbeat at %s, then a rebalance of %s), and %s processed after its last commit were processed again",
		FormatTime(des.FromSeconds(rb.CompletedS-rb.FailedS)), FormatTime(des.FromSeconds(rb.LastHeartbeatS)),
		FormatTime(des.FromSeconds(rb.PauseS)), plural.Count(int64(rb.Duplicates), "record"))
}

// removedHolds reports whether one of the members removed during a
// rebalance held partition p.
func removedHolds(rs []RemovedMember, p int) bool {
	return slices.ContainsFunc(rs, func(r RemovedMember) bool { return slices.Contains(r.Partitions, p) })
}

// partitionsText lists partitions: "partitions 0, 1" or "no partition".
func partitionsText(ps []int) string {
	if len(ps) == 0 {
		return "no partition"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return plural.For(len(ps), "partition") + " " + strings.Join(s, ", ")
}

// Events of consumer groups (Event.Vertex names the group).
const (
	EventConsumerFailed   = "consumer_failed"                  // a member of a consumer group died
	EventGroupRebalancing = "consumer_group_rebalance_started" // the coordinator removed it: the group rebalances
	EventGroupRebalanced  = "consumer_group_rebalanced"        // every member has its new partitions
)

// KindConsumer is the kind of a consumer group member's rows in
// timeseries.csv (vertex: the group's name, subtask: the member).
const KindConsumer = "consumer"

// GroupColumns follow the other columns of timeseries.csv in a run with
// consumer groups: a member's partitions (assigned_partitions, how many;
// summary.json lists them) and the records it processed again after a
// rebalance so far (duplicates); empty on the rows of vertices.
var GroupColumns = []string{"assigned_partitions", "duplicates"}

// RowGroup is the GroupColumns of a row.
type RowGroup struct {
	On         bool // the row is a consumer group member's (or the group's)
	Partitions int
	Duplicates uint64
}

// appendCSV appends the GroupColumns of g to rec.
func (g *RowGroup) appendCSV(rec []string) []string {
	if !g.On {
		return append(rec, "", "")
	}
	return append(rec, strconv.Itoa(g.Partitions), strconv.FormatUint(g.Duplicates, 10))
}

// addBusy and addDown count [from, to) in the current metrics interval.
func (m *groupMember) addBusy(from, to des.Time) { m.ivBusy += max(to-max(from, m.ivFrom), 0) }
func (m *groupMember) addDown(from, to des.Time) { m.ivDown += max(to-max(from, m.ivFrom), 0) }

// down reports whether the member is not consuming: failed, or joined
// and waiting for its assignment (the rebalance pause).
func (m *groupMember) down() bool { return !m.alive || m.joined }

// lag is the records of the member's partitions appended by now and not
// yet polled (Kafka's records-lag, log end offset − position, summed).
func (m *groupMember) lag(now des.Time) uint64 {
	var n uint64
	end := m.g.s.topicEnd(m.g.pg.Topic)
	for _, p := range m.parts {
		if leo, pos := end.leo(now, p), m.g.cursors[p].position(p); leo > pos {
			n += leo - pos
		}
	}
	return n
}

// lag is the group's lag: over all the topic's partitions, owned or not
// (a group whose members all failed still lags behind what is appended).
func (g *consumerGroup) lag(now des.Time) uint64 {
	var n uint64
	end := g.s.topicEnd(g.pg.Topic)
	for p := range g.pg.Topic.Partitions {
		if leo, pos := end.leo(now, p), g.cursors[p].position(p); leo > pos {
			n += leo - pos
		}
	}
	return n
}

// served reports whether a live member owns every partition of the group.
func (g *consumerGroup) served() bool {
	n := 0
	for _, m := range g.members {
		if m.alive {
			n += len(m.parts)
		}
	}
	return n == g.pg.Topic.Partitions
}

// sampleGroups appends the rows of every consumer group's members, then
// the group's (Subtask -1), to smp.
func (s *Sim) sampleGroups(smp *Sample, now des.Time) {
	dt := now - s.lastSample
	for _, g := range s.groups {
		gr := Row{Vertex: g.pg.Name, Kind: KindConsumer, Subtask: -1, Idle: math.Inf(1), Status: StatusOK,
			LatencyP50: math.NaN(), LatencyP90: math.NaN(), LatencyP99: math.NaN(), LatencyMax: math.NaN(), Group: RowGroup{On: true}}
		for _, m := range g.members {
			if m.cur >= 0 {
				m.addBusy(m.busyFrom, now)
			}
			if m.down() {
				m.addDown(m.pausedFrom, now)
			}
			r := Row{Vertex: g.pg.Name, Kind: KindConsumer, Subtask: m.index, InRate: float64(m.ivRecs) / dt.Seconds(),
				Busy: msPerS(m.ivBusy, dt), Down: msPerS(m.ivDown, dt), Status: StatusOK, SourceLag: int64(m.lag(now)),
				LatencyP50: math.NaN(), LatencyP90: math.NaN(), LatencyP99: math.NaN(), LatencyMax: math.NaN(),
				Group: RowGroup{On: true, Partitions: len(m.parts), Duplicates: m.duplicates}}
			r.Idle = max(1000-r.Busy-r.Down, 0)
			// the group is down while a failed member still holds
			// partitions (until the rebalance moves them): a member
			// removed from the group holds none, and the group runs on
			owns := len(m.parts) > 0
			if m.down() {
				r.Status = StatusDown
				if owns {
					gr.Status = StatusDown
				}
			}
			if now > s.warmup { // no interval straddles the warmup (nextSample)
				m.winBusy += m.ivBusy
			}
			m.ivBusy, m.ivDown, m.ivRecs, m.ivFrom = 0, 0, 0, now
			smp.Rows = append(smp.Rows, r)
			gr.InRate += r.InRate
			gr.Busy = max(gr.Busy, r.Busy)
			if owns || !m.down() {
				gr.Idle = min(gr.Idle, r.Idle)
				gr.Down = max(gr.Down, r.Down)
			}
			gr.SourceLag += r.SourceLag
			gr.Group.Partitions += r.Group.Partitions
			gr.Group.Duplicates += r.Group.Duplicates
		}
		gr.SourceLag = int64(g.lag(now)) // the partitions nobody owns too
		if g.midAt < 0 && now >= s.windowMiddle() {
			g.lagMid, g.midAt = uint64(gr.SourceLag), now
		}
		if !g.served() && !g.rebalancing {
			// every member that could take them failed: nobody reads
			// those partitions (during a rebalance they wait, as above)
			gr.Status = StatusDown
		}
		smp.Rows = append(smp.Rows, gr)
	}
}

// ConsumerGroupSummary is a consumer group at the end of the run
// (summary.json consumer_groups[]).
type ConsumerGroupSummary struct {
	Name     string `json:"name"`
	Topic    string `json:"topic"`
	Assignor string `json:"assignor"` // RangeAssignor's name: range
	// Processed counts the records the members processed, Duplicates
	// those processed again after a rebalance (from the last committed
	// offset of a failed member's partition); SkippedByReset the records
	// a partition without a committed offset skipped (auto.offset.reset
	// latest); Lag the records appended and not yet polled.
	Processed uint64 `json:"records_processed"`
	// ProcessedRate is the records the members processed (duplicates
	// included) per simulated second over the statistics window, as
	// a vertex's rates are: what the group keeps up with.
	ProcessedRate  float64               `json:"processed_rate_rps"`
	Duplicates     uint64                `json:"duplicates"`
	SkippedByReset uint64                `json:"skipped_by_offset_reset"`
	Lag            uint64                `json:"lag_records"`
	Members        []GroupMemberSummary  `json:"members"`
	Rebalances     []GroupRebalance      `json:"rebalances"`
	Partitions     []GroupPartitionState `json:"partitions_detail"`
	// the group's lag at midS, the first metrics sample at or past the
	// middle of the window (midS -1: none), for the diagnosis
	lagMid uint64
	midS   float64
}

// GroupMemberSummary is one member at the end of the run.
type GroupMemberSummary struct {
	Member int    `json:"member"`
	ID     string `json:"member_id"`
	// State is stable, rebalancing (joined, waiting for its
	// assignment) or failed.
	State      string `json:"state"`
	Partitions []int  `json:"assigned_partitions"`
	Processed  uint64 `json:"records_processed"`
	Duplicates uint64 `json:"duplicates"`
	Lag        uint64 `json:"lag_records"`
	// BusyRatio is the share of the statistics window the member spent
	// processing records, as a vertex's busy_ratio.
	BusyRatio float64 `json:"busy_ratio"`
}

// GroupPartitionState is one partition of a group's topic at the end:
// its owner, log end offset, position and committed offset (-1: none).
type GroupPartitionState struct {
	Partition    int    `json:"partition"`
	Owner        string `json:"member_id"`
	LogEndOffset uint64 `json:"log_end_offset"`
	Position     uint64 `json:"position"`
	Committed    int64  `json:"committed_offset"`
	Lag          uint64 `json:"lag_records"`
}

// groupSummaries sums up the consumer groups at now, their rates over
// the statistics window (the window's span winSec in seconds, 0 when the
// run stopped inside the warmup).
func (s *Sim) groupSummaries(now des.Time, winSec float64) []ConsumerGroupSummary {
	var out []ConsumerGroupSummary
	for _, g := range s.groups {
		var inWin uint64
		gs := ConsumerGroupSummary{Name: g.pg.Name, Topic: g.pg.Topic.Name, Assignor: "range", Duplicates: g.duplicates, SkippedByReset: g.skipped,
			Members: []GroupMemberSummary{}, Rebalances: append([]GroupRebalance{}, g.rebalances...)}
		for _, m := range g.members {
			state := "stable"
			switch {
			case !m.alive:
				state = "failed"
			case m.joined || g.rebalancing:
				state = "rebalancing"
			}
			ms := GroupMemberSummary{Member: m.index, ID: m.id, State: state, Partitions: append([]int{}, m.parts...),
				Processed: m.processed, Duplicates: m.duplicates, Lag: m.lag(now)}
			if winSec > 0 {
				ms.BusyRatio = round6(m.winBusy.Seconds() / winSec)
			}
			gs.Processed += m.processed
			inWin += m.processed - m.preProcessed
			gs.Members = append(gs.Members, ms)
		}
		if winSec > 0 {
			gs.ProcessedRate = round6(float64(inWin) / winSec)
		}
		gs.Lag = g.lag(now)
		gs.lagMid, gs.midS = g.lagMid, -1
		if g.midAt >= 0 {
			gs.midS = g.midAt.Seconds()
		}
		end := s.topicEnd(g.pg.Topic)
		for p := range g.pg.Topic.Partitions {
			ps := GroupPartitionState{Partition: p, Owner: g.members[g.owner[p]].id, LogEndOffset: end.leo(now, p),
				Position: g.cursors[p].position(p), Committed: -1}
			if sn := g.committed[p]; sn != nil {
				ps.Committed = int64(sn.position(p))
			}
			if ps.LogEndOffset > ps.Position {
				ps.Lag = ps.LogEndOffset - ps.Position
			}
			gs.Partitions = append(gs.Partitions, ps)
		}
		out = append(out, gs)
	}
	return out
}

// groupOverCapacity says whether group g, at the end of a window that
// closes at endS, falls behind for want of capacity: its busiest member
// is busy at least busyThreshold of the window and its lag grew from the
// middle of the window to the end by more than catchUpMargin allows
// (jitter), with no failed member holding partitions (whose stall
// explains a growing lag by itself). It returns the diagnosis's message
// and its evidence.
func groupOverCapacity(g *ConsumerGroupSummary, endS float64) (msg, evidence string, ok bool) {
	busiest := -1
	for i, m := range g.Members {
		if m.State == "failed" && len(m.Partitions) > 0 {
			return "", "", false
		}
		if busiest < 0 || m.BusyRatio > g.Members[busiest].BusyRatio {
			busiest = i
		}
	}
	if busiest < 0 || g.Members[busiest].BusyRatio < busyThreshold || g.midS < 0 || endS <= g.midS ||
		g.Lag <= g.lagMid+max(catchUpSlack, uint64(catchUpShare*float64(g.lagMid))) {
		return "", "", false
	}
	growth := float64(g.Lag-g.lagMid) / (endS - g.midS)
	parts := len(g.Partitions)
	remedy := fmt.Sprintf("give it more members (topic %s has %s: up to %d consumers share them) or make processing faster", g.Topic, plural.Count(parts, "partition"), parts)
	if len(g.Members) >= parts {
		remedy = fmt.Sprintf("every partition of topic %s has a consumer of its own already (%s, %s): make processing faster, or give the topic more partitions and the group more members",
			g.Topic, plural.Count(len(g.Members), "member"), plural.Count(parts, "partition"))
	}
	msg = fmt.Sprintf("over capacity: consumer group %s processes %s records/s and falls behind: its lag grows from %s at %s to %s at the end (about %s records/s); %s",
		g.Name, rateText(g.ProcessedRate), plural.Count(int64(g.lagMid), "record"), FormatTime(des.FromSeconds(g.midS)), plural.Count(int64(g.Lag), "record"), rateText(growth), remedy)
	m := g.Members[busiest]
	evidence = fmt.Sprintf("%s is busy %s processing %s", m.ID, pct(m.BusyRatio), partitionsText(m.Partitions))
	if len(g.Members) > 1 {
		evidence = fmt.Sprintf("the busiest member, %s, is busy %s processing %s", m.ID, pct(m.BusyRatio), partitionsText(m.Partitions))
	}
	return msg, evidence, true
}

// groupText is a consumer group's line of the summary table.
func groupText(gs *ConsumerGroupSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "consumer group %s (topic %s, %s, RangeAssignor): %s processed, lag %s",
		gs.Name, gs.Topic, plural.Count(len(gs.Members), "member"), plural.Count(int64(gs.Processed), "record"), plural.Count(int64(gs.Lag), "record"))
	for _, rb := range gs.Rebalances {
		fmt.Fprintf(&b, "; %s failed at %s, removed at %s (last heartbeat %s + session.timeout.ms)", rb.Member,
			FormatTime(des.FromSeconds(rb.FailedS)), FormatTime(des.FromSeconds(rb.DetectedS)), FormatTime(des.FromSeconds(rb.LastHeartbeatS)))
		for _, o := range rb.AlsoRemoved {
			fmt.Fprintf(&b, "; %s failed at %s, removed at %s during that rebalance", o.Member, FormatTime(des.FromSeconds(o.FailedS)), FormatTime(des.FromSeconds(o.DetectedS)))
		}
		if rb.CompletedS >= 0 {
			later := "later"
			if len(rb.AlsoRemoved) > 0 {
				later = "after the first removal"
			}
			fmt.Fprintf(&b, ", rebalanced %s %s: %s moved, %s processed again (duplicates)",
				FormatTime(des.FromSeconds(rb.PauseS)), later, partitionsText(rb.Moved), plural.Count(int64(rb.Duplicates), "record"))
		} else {
			b.WriteString(", still rebalancing at the end")
		}
	}
	if gs.SkippedByReset > 0 {
		fmt.Fprintf(&b, "; %s skipped (no committed offset: auto.offset.reset latest)", plural.Count(int64(gs.SkippedByReset), "record"))
	}
	return b.String()
}

// failConsumer applies a scripted consumer failure now.
func (s *Sim) failConsumer(now des.Time, fl *scenario.Failure) {
	for _, g := range s.groups {
		if g.pg.Name == fl.Group && fl.Member >= 0 && fl.Member < len(g.members) {
			g.fail(now, g.members[fl.Member])
		}
	}
}

// groupReads reports whether a consumer group of the summary reads topic.
func (s *Summary) groupReads(topic string) bool {
	for _, g := range s.ConsumerGroups {
		if g.Topic == topic {
			return true
		}
	}
	return false
}

// diagnoseGroups puts each rebalance after a member's failure in the
// diagnosis's evidence, and at its head when nothing else is the news:
// how long the failed member's partitions made no progress, and what
// was processed again.
func diagnoseGroups(sum *Summary) {
	headed := false
	say := func(group, line string) {
		d := &sum.Diagnosis
		if d.Kind == DiagnosisNone && !headed {
			d.Kind, d.Vertex, d.Message, headed = DiagnosisConsumerFailure, group, line, true
			return
		}
		d.Evidence = append(d.Evidence, line)
	}
	for _, g := range sum.ConsumerGroups {
		// the end first: a failed member not removed yet, or no member
		// left, leaves partitions nobody reads
		live := false
		for _, m := range g.Members {
			live = live || m.State != "failed"
			if m.State == "failed" && len(m.Partitions) > 0 {
				say(g.Name, fmt.Sprintf("consumer %s of group %s has failed and still holds %s at the end: the coordinator removes it only session.timeout.ms after its last heartbeat, so they make no progress (the group lags %s)",
					m.ID, g.Name, partitionsText(m.Partitions), plural.Count(int64(g.Lag), "record")))
			}
		}
		if !live {
			say(g.Name, fmt.Sprintf("every consumer of group %s has failed: nobody reads topic %s any more (the group lags %s)", g.Name, g.Topic, plural.Count(int64(g.Lag), "record")))
		}
		if msg, evidence, ok := groupOverCapacity(&g, sum.Window.ToS); ok {
			if d := &sum.Diagnosis; d.Kind == DiagnosisNone && !headed {
				*d = Diagnosis{Kind: DiagnosisOverloaded, Vertex: g.Name, Message: msg, Evidence: []string{evidence}}
				headed = true
			} else {
				say(g.Name, msg)
			}
		}
		for _, rb := range g.Rebalances {
			// the first heads a diagnosis with nothing else to say (once:
			// not again in the evidence)
			say(g.Name, rebalanceText(g.Name, &rb))
		}
	}
}
