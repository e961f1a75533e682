package scenarios_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

func graphOf(t *testing.T, s *sim.Summary) sim.GraphSummary {
	t.Helper()
	if len(s.Graphs) != 1 {
		t.Fatalf("%d graph summaries, want 1", len(s.Graphs))
	}
	return s.Graphs[0]
}

// The streaming-graph lessons teach what their comments say: on RocksDB a
// ValueState adjacency list back-pressures the edge stream where a
// MapState keeps up; on the heap the same spanner does some 35 times less
// work per edge; components of the grid end as one, with a spanning tree.
func TestSpannerPrimitivesAndBackends(t *testing.T) {
	value := run(t, load(t, "spanner-rocksdb"), nil).Summary
	gv := graphOf(t, &value)
	if src := vertex(t, &value, "edges"); src.Backpressured < 0.5 || vertex(t, &value, "spanner").Busy < 0.9 {
		t.Errorf("value on rocksdb: source back-pressured %.2f, spanner busy %.2f; want the spanner the bottleneck", src.Backpressured, vertex(t, &value, "spanner").Busy)
	}
	if gv.WorkMeanUs < 250 || gv.SearchRatio < 0.78 || gv.SearchRatio > 0.82 || gv.VisitsMean < 35 || gv.VisitsP99 < 200 {
		t.Errorf("value on rocksdb: %+v; want ~300µs of work, ~80%% searched, ~40 visits (p99 over 200)", gv)
	}
	mp := run(t, edit(t, "spanner-rocksdb", "primitive: value", "primitive: map"), nil).Summary
	gm := graphOf(t, &mp)
	if src := vertex(t, &mp, "edges"); src.Backpressured > 0.05 || gm.WorkMeanUs > 0.8*gv.WorkMeanUs {
		t.Errorf("map on rocksdb: source back-pressured %.2f, work %.1fµs (value %.1fµs); want it keeping up", src.Backpressured, gm.WorkMeanUs, gv.WorkMeanUs)
	}
	heap := run(t, load(t, "spanner-heap"), nil).Summary
	gh := graphOf(t, &heap)
	if gh.WorkMeanUs > 10 || gv.WorkMeanUs < 30*gh.WorkMeanUs || vertex(t, &heap, "spanner").Busy > 0.06 {
		t.Errorf("heap: work %.1fµs (rocksdb %.1fµs), busy %.2f; want over 30 times less, busy ~4%%", gh.WorkMeanUs, gv.WorkMeanUs, vertex(t, &heap, "spanner").Busy)
	}
	// the same edges give the same spanner: heap processed all it was
	// offered, so its counts are those of the whole stream so far
	if gh.Edges != 239729 || gh.Kept+gh.Dropped != gh.Edges || gh.Shortcuts+gh.Searches != gh.Edges {
		t.Errorf("heap: %+v", gh)
	}
	small, err := sim.Run(context.Background(), edit(t, "spanner-heap", "state_backend: {type: heap}", "state_backend: {type: heap}\nworkers: {memory: 8MiB}"), sim.Options{})
	if err == nil || !strings.Contains(err.Error(), "ran out of memory at 34.") || !small.Summary.Partial {
		t.Errorf("heap with 8MiB: %v; want stopped out of memory at about 34s", err)
	}
	t.Logf("rocksdb value %.0fµs, map %.0fµs, heap %.1fµs per edge; %.0f%% searched, %.1f visits per search", gv.WorkMeanUs, gm.WorkMeanUs, gh.WorkMeanUs, 100*gv.SearchRatio, gv.VisitsMean)
}

func TestComponentsOfTheGrid(t *testing.T) {
	s := run(t, load(t, "components-grid"), nil).Summary
	g := graphOf(t, &s)
	if g.Edges != 179400 || g.Components != 1 || g.Vertices != 90000 || g.Kept != 89999 || g.Dropped != 89401 {
		t.Errorf("components: %+v; want 179400 edges, 1 component of 90000 vertices, a spanning tree of 89999", g)
	}
	r := run(t, edit(t, "components-grid", "network: {buffer_timeout: 10ms}", "network: {buffer_timeout: 10ms}\nstate_backend: {type: rocksdb}"), nil).Summary
	if gr := graphOf(t, &r); gr.WorkMeanUs < 25 || gr.WorkMeanUs > 35 || gr.Components != 1 {
		t.Errorf("components on rocksdb: %.1fµs per edge, want about 30 (some 6 accesses of 5µs)", gr.WorkMeanUs)
	}
}

// TestGraphSpannerExercise: the exercise graph-spanner asks what the
// issue's lecture asks, with numbers a student measures: which state
// primitive and backend keep a 3-spanner (k = 2) up with 10,000 edges/s,
// and what fraction of the edges needs a search. Of the six answers its
// editable fields allow exactly one keeps up, MapState on RocksDB (55µs
// of work per edge with the starter's access_time 1us and
// serialization_bandwidth 50MiB/s: contains() at a search's last level,
// one entry put per kept edge). ValueState and ListState on RocksDB
// (de)serialise whole neighbour lists (129µs and 133µs per edge) and
// stay back-pressured over 60%; on the heap every primitive runs out of
// the workers' 8MiB (the graph state passes it at 8.1s to 13.8s of the
// 20s) and the run stops. The search fraction is 80.0% for every answer
// that runs (the stream decides it, not the storage), within the
// question's 5%.
func TestGraphSpannerExercise(t *testing.T) {
	b, err := os.ReadFile("../exercises/builtin/graph-spanner/starter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const starterBackend = "state_backend: {type: rocksdb,"
	if !strings.Contains(string(b), starterBackend) || !strings.Contains(string(b), "primitive: value") {
		t.Fatalf("starter.yaml has no %q or \"primitive: value\"", starterBackend)
	}
	for _, backend := range []string{"heap", "rocksdb"} {
		for _, prim := range []string{"value", "list", "map"} {
			text := strings.Replace(strings.Replace(string(b), "primitive: value", "primitive: "+prim, 1), starterBackend, "state_backend: {type: "+backend+",", 1)
			sc := parse(t, "graph-spanner", []byte(text))
			res, err := sim.Run(context.Background(), sc, sim.Options{})
			if backend == "heap" {
				if err == nil || !strings.Contains(err.Error(), "ran out of memory") || !strings.Contains(err.Error(), "the graph of spanner, "+prim) {
					t.Errorf("%s on heap: err %v, want the run stopped: out of memory (the graph of spanner)", prim, err)
				}
				continue
			}
			if err != nil || res.Summary.Partial {
				t.Fatalf("%s on %s: %v (partial %v)", prim, backend, err, res.Summary.Partial)
			}
			s := res.Summary
			g := graphOf(t, &s)
			bp := vertex(t, &s, "edges").Backpressured
			keepsUp := bp <= 0.1 && g.Edges >= 199000 // the exercise's checks
			if keepsUp != (prim == "map") {
				t.Errorf("%s on %s: back-pressured %.2f, %d edges, %.1fµs per edge; want it to keep up only with map", prim, backend, bp, g.Edges, g.WorkMeanUs)
			}
			if prim != "map" && bp < 0.6 {
				t.Errorf("%s on %s: back-pressured %.2f, want over 0.60", prim, backend, bp)
			}
			if math.Abs(g.SearchRatio-0.8) > 0.05*0.8 {
				t.Errorf("%s on %s: search ratio %.4f, want 0.80 within 5%%", prim, backend, g.SearchRatio)
			}
		}
	}
}
