package scenario

import (
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/strictyaml"
)

// Rules of consumer groups (Scenario.ConsumerGroups) between fields, and
// of the failures of their members. The single fields are checked by
// their description in fields.go.

// GroupByName returns the consumer group named name, or nil.
func (s *Scenario) GroupByName(name string) *ConsumerGroup {
	for i := range s.ConsumerGroups {
		if s.ConsumerGroups[i].Name == name {
			return &s.ConsumerGroups[i]
		}
	}
	return nil
}

// consumerGroups checks the groups: unique names apart from the
// vertices' (timeseries.csv names a group's rows by it), a topic of
// producers, and a heartbeat more often than the session timeout (the
// Kafka client refuses heartbeat.interval.ms >= session.timeout.ms).
func (c *checker) consumerGroups() {
	s := c.s
	vertex := map[string]bool{}
	for _, v := range s.vertices() {
		vertex[v.name] = true
	}
	first := map[string]int{}
	for i, g := range s.ConsumerGroups {
		p := strictyaml.Index(kConsumerGroups, i)
		if g.Name != "" {
			if j, dup := first[g.Name]; dup {
				line, _ := s.Pos(strictyaml.Index(kConsumerGroups, j) + "." + kName)
				c.errorf(p+"."+kName, "duplicate consumer group name %s; first declared at line %d", quote(g.Name), line)
			} else if vertex[g.Name] {
				c.errorf(p+"."+kName, "%s names a vertex of the job already; give the consumer group a name of its own (its rows in timeseries.csv go by it)", quote(g.Name))
			} else {
				first[g.Name] = i
			}
		}
		if g.Topic != "" {
			switch t := s.TopicByName(g.Topic); {
			case t == nil:
				c.unknownTopic(p+"."+kTopic, g.Topic)
			case s.topicWrittenBySinks(g.Topic):
				c.errorf(p+"."+kTopic, "topic %s is written by sinks of a job; a consumer group reads a topic of producers (sources with writes)", quote(g.Topic))
			}
		}
		if g.HeartbeatInterval > 0 && g.SessionTimeout > 0 && g.HeartbeatInterval >= g.SessionTimeout && !c.isBad(p+"."+kSessionTimeout) {
			c.errorf(p+"."+kHeartbeatInterval, "must be lower than session_timeout (%s), as Kafka's heartbeat.interval.ms must be lower than session.timeout.ms, got %s",
				FormatDuration(g.SessionTimeout), FormatDuration(g.HeartbeatInterval))
		}
	}
}

// topicWrittenBySinks reports whether a sink writes topic name.
func (s *Scenario) topicWrittenBySinks(name string) bool {
	for _, sk := range s.Sinks {
		if sk.Writes != nil && sk.Writes.Topic == name {
			return true
		}
	}
	return false
}

// failedMember checks the group and member of a consumer failure.
func (c *checker) failedMember(p string, f Failure) {
	if f.Group == "" {
		return // required: the field's description says so
	}
	g := c.s.GroupByName(f.Group)
	if g == nil {
		var names []string
		for _, g := range c.s.ConsumerGroups {
			names = append(names, g.Name)
		}
		msg := fmt.Sprintf("unknown consumer group %s", quote(f.Group))
		if sug := c.suggestName(f.Group, names); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		} else if len(names) == 0 {
			msg += "; the scenario declares no consumer groups (add one under consumer_groups:)"
		} else if len(names) <= 10 {
			msg += "; consumer groups are " + strings.Join(names, ", ")
		}
		c.errorf(p+"."+kGroup, "%s", msg)
		return
	}
	if g.Members >= 1 && (f.Member < 0 || f.Member >= g.Members) {
		c.errorf(p+"."+kMember, "%s, got %d", rangeText(g.Members, fmt.Sprintf("group %s has %s", quote(g.Name), plural.Count(g.Members, "member"))), f.Member)
	}
}
