package sim

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// A flush does not close the buffer (Flink's PipelinedSubpartition.flush
// with BufferBuilder and BufferConsumer over one memory segment): with no
// credit the writer keeps filling the same buffer until it is full, so
// between two back-pressured vertices every buffer held is full and the
// bytes queued are the buffers held × buffer_size, within one record a
// buffer (records are not split across buffers). src (2000/s) into a
// (1ms a record) into b (10ms): a and src wait for buffers; on src -> a,
// src's 2 + 8 buffers and a's 2 + 8 are all in use, and but for the one
// a is reading each holds 327 records of 100B (32700 of 32768 bytes). Before, the output flusher closed a buffer at
// its tick with about 200 records in it.
func TestFlushDoesNotCloseTheBuffer(t *testing.T) {
	sc := mustParse(t, `
name: full
duration: 60s
sources: [{name: src, arrival: {process: constant, rate: 2000/s}, max_rate: 2000/s, record_size: 100B, replayable: true}]
operators:
  - {name: a, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 1ms}}
  - {name: b, input: a, partitioning: rebalance, service_time: {distribution: constant, mean: 10ms}}
sinks: [{name: out, input: b, partitioning: rebalance}]
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const bufSize, rec = 32768, 100
	checked := 0
	for at := 20 * des.Second; at <= 60*des.Second; at += 1700 * des.Millisecond {
		if err := s.RunUntil(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		src, a := s.vertices[0].subtasks[0], s.vertices[1].subtasks[0]
		if src.state != stateBP || a.state != stateBP {
			continue // the sender is writing a fresh buffer, or a is busy
		}
		p := src.outs[0]
		c := p.chans[0]
		held := len(c.part.chans)*2 + 8 - p.pool.available // the sender's buffers in use
		var bytes int64
		if c.cur != nil {
			t.Fatalf("%s: src is blocked with an open buffer of %d records", FormatTime(at), len(c.cur.recs))
		}
		for i := 0; i < c.backlog.len(); i++ {
			bytes += c.backlog.at(i).bytes
		}
		for i := 0; i < c.inflight.len(); i++ {
			bytes += c.inflight.at(i).bytes
		}
		for i := 0; i < c.queue.len(); i++ { // a's input, but the buffer it reads
			bytes += c.queue.at(i).bytes
			held++
		}
		if a.gate.cur == nil {
			t.Fatalf("%s: a is blocked with no buffer in hand", FormatTime(at))
		}
		if held != 19 || bytes > int64(held)*bufSize || bytes < int64(held)*(bufSize-rec) {
			t.Errorf("%s: %d bytes queued in %d buffers besides the one a reads; want 19 buffers of %d bytes, each within one record (%dB) of full", FormatTime(at), bytes, held, bufSize, rec)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("only %d instants with src and a back-pressured", checked)
	}
}
