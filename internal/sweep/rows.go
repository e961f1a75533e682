package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
)

// rowSpool keeps the CSV rows of a sweep's completed runs in a temporary
// file, in run order, so that a sweep's memory does not grow with its runs
// (a row of a 200-vertex scenario is some 185 KB): only the rows of runs
// that completed before an earlier one wait in memory, and execute hands
// out at most window runs ahead of the first one not yet written. The
// rows whose partial column is true are noted as they pass (partialRuns).
type rowSpool struct {
	f       *os.File
	w       *csv.Writer
	header  []string
	next    int              // position in the plan's runs of the next one to write
	waiting map[int][]string // by position; nil: the run gave no row
	rows    int              // rows written
	most    int              // the most rows that waited at once
	partial []int            // runs whose row says partial=true
	descs   []string         // and what they are (see partialRuns)
}

// newRowSpool creates the spool in the system's temporary directory and
// writes header.
func newRowSpool(header []string) (*rowSpool, error) {
	f, err := os.CreateTemp("", "dspalab-sweep-rows-*.csv")
	if err != nil {
		return nil, fmt.Errorf("sweep: keeping the rows: %w", err)
	}
	s := &rowSpool{f: f, w: csv.NewWriter(f), header: header, waiting: map[int][]string{}, partial: []int{}}
	if err := s.w.Write(header); err != nil {
		s.close()
		return nil, fmt.Errorf("sweep: keeping the rows: %w", err)
	}
	return s, nil
}

// put takes the row of the run at position k (nil: none) and writes every
// row that is now next in order.
func (s *rowSpool) put(k int, row []string) error {
	s.waiting[k] = row
	s.most = max(s.most, len(s.waiting))
	for {
		row, ok := s.waiting[s.next]
		if !ok {
			return nil
		}
		delete(s.waiting, s.next)
		s.next++
		if row == nil {
			continue
		}
		if err := s.w.Write(row); err != nil {
			return fmt.Errorf("sweep: keeping the rows: %w", err)
		}
		s.rows++
		runs, descs := partialRuns(s.header, [][]string{row})
		s.partial, s.descs = append(s.partial, runs...), append(s.descs, descs...)
	}
}

// finish writes the rows still waiting (their earlier runs gave none: the
// sweep was interrupted), in order.
func (s *rowSpool) finish() error {
	for len(s.waiting) > 0 {
		if _, ok := s.waiting[s.next]; !ok {
			s.waiting[s.next] = nil
		}
		if err := s.put(s.next, s.waiting[s.next]); err != nil {
			return err
		}
	}
	s.w.Flush()
	return s.w.Error()
}

// copyTo writes the CSV, header and rows, to w.
func (s *rowSpool) copyTo(w io.Writer) error {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// close removes the spool.
func (s *rowSpool) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
