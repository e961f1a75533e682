package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
)

// The spool writes rows in run order whatever order they come in, skips
// runs without a row, and notes the partial ones.
func TestRowSpoolOrder(t *testing.T) {
	header := []string{runfiles.SweepRunColumn, "p", runfiles.SweepSeedColumn, runfiles.SweepPartialColumn}
	s, err := newRowSpool(header)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	row := func(i int, partial bool) []string {
		return []string{strconv.Itoa(i), "x", "1", strconv.FormatBool(partial)}
	}
	for _, k := range []int{2, 0, 3} { // run 1 gave no row and 4 has not come yet
		if err := s.put(k, row(k, k == 3)); err != nil {
			t.Fatal(err)
		}
	}
	if s.next != 1 || s.rows != 1 || s.most != 2 {
		t.Errorf("before run 1: next %d, %d rows, %d waited", s.next, s.rows, s.most)
	}
	if err := s.put(1, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.copyTo(&b); err != nil {
		t.Fatal(err)
	}
	if want := "run,p,seed,partial\n0,x,1,false\n2,x,1,false\n3,x,1,true\n"; b.String() != want {
		t.Errorf("spool:\n%s\nwant\n%s", b.String(), want)
	}
	if fmt.Sprint(s.partial, s.descs) != "[3] [run 3 (p=x, seed 1)]" {
		t.Errorf("partial %v %v", s.partial, s.descs)
	}
}

// A sweep keeps few rows in memory however many runs it has (issue 13
// F17): runs are handed out at most 4 per worker ahead of the first row
// not yet written, so the rows waiting stay within that window, and
// sweep.csv still holds every row in run order.
func TestSweepRowsStream(t *testing.T) {
	var seeds []string
	for i := range 60 {
		seeds = append(seeds, fmt.Sprintf("%d/s", 10+i))
	}
	opts := Options{Scenario: "testdata/tiny.yaml", Seeds: 5, Workers: 3, OutDir: t.TempDir(),
		Params: []Param{{Path: "sources.src.arrival.rate", Values: seeds}, {Path: "duration", Values: []string{"1s"}}}}
	p, err := newPlan(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := newRowSpool(p.header)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.close()
	var mu sync.Mutex
	ticks := 0
	done, err := p.execute(context.Background(), opts, 3, rows, func() { mu.Lock(); ticks++; mu.Unlock() })
	if err != nil || done != 300 || ticks != 300 || rows.rows != 300 {
		t.Fatalf("%d done, %d ticks, %d rows, %v", done, ticks, rows.rows, err)
	}
	if rows.most > 4*3+4 {
		t.Errorf("%d rows waited at once, want at most %d", rows.most, 4*3+4)
	}
	var b bytes.Buffer
	if err := rows.copyTo(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 301 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for i, r := range recs[1:] {
		if r[0] != strconv.Itoa(i) {
			t.Fatalf("row %d is run %s", i, r[0])
		}
	}
}
