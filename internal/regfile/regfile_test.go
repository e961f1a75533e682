package regfile

import (
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// A regular file, through a symbolic link too, opens; a directory and
// /dev/zero behind a symbolic link are refused without reading.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{p, link} {
		f, err := Open(ok)
		if err != nil {
			t.Fatalf("Open(%s): %v", ok, err)
		}
		f.Close()
	}
	zero := filepath.Join(dir, "timeseries.csv")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{dir: "a directory", zero: "a character device"} {
		_, err := Open(path)
		var ne *NotRegularError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), path+" is not a regular file ("+want+")") {
			t.Errorf("Open(%s) = %v, want not a regular file (%s)", path, err, want)
		}
		if _, err := ReadFile(path, 10); !errors.As(err, &ne) {
			t.Errorf("ReadFile(%s) = %v", path, err)
		}
		if _, err := OpenFS(os.DirFS(filepath.Dir(path)), filepath.Base(path)); !errors.As(err, &ne) && path == zero {
			t.Errorf("OpenFS(%s) = %v", path, err)
		}
	}
	if _, err := ReadFile(p, 1); err == nil || err.Error() != p+" is larger than 1B, the most dspalab reads of it" {
		t.Errorf("ReadFile over the limit: %v", err)
	}
	if data, err := ReadFileFS(fstest.MapFS{"s.json": {Data: []byte("{}")}}, "s.json", 2); err != nil || string(data) != "{}" {
		t.Errorf("ReadFileFS = %q, %v", data, err)
	}
}

// LimitLines stops at the first line longer than the limit and names it,
// before reading the rest; lines up to the limit pass whole.
func TestLimitLines(t *testing.T) {
	in := "a,b\n" + strings.Repeat("x", 8) + ",1\n" + strings.Repeat("y", 100) + "\nlast\n"
	r := csv.NewReader(LimitLines(&chunked{strings.NewReader(in), 3}, "t.csv", 10))
	r.FieldsPerRecord = -1
	for _, want := range []string{"a", strings.Repeat("x", 8)} {
		rec, err := r.Read()
		if err != nil || rec[0] != want {
			t.Fatalf("Read = %q, %v; want %q", rec, err, want)
		}
	}
	_, err := r.Read()
	var le *LineTooLongError
	if !errors.As(err, &le) || le.Line != 3 || err.Error() != "t.csv line 3: longer than 10B, the longest line dspalab reads (is this the right file?)" || !errors.Is(err, ErrLineTooLong) {
		t.Errorf("the long line: %v", err)
	}
	// an endless line is cut off after about the limit
	cr := &countingReader{r: zeros{}}
	_, err = io.ReadAll(LimitLines(cr, "z", MaxLine))
	if !errors.As(err, &le) || le.Line != 1 || cr.n > MaxLine+64<<10 {
		t.Errorf("an endless line: %v after %d bytes", err, cr.n)
	}

	sc := Scanner(strings.NewReader("ok\n"+strings.Repeat("z", 50)+"\n"), 20)
	line := int64(0)
	for sc.Scan() {
		line++
	}
	if err := ScanErr(sc, "e.jsonl", line+1, 20); !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("ScanErr = %v, want line 2", err)
	}
}

type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p[:min(len(p), 32<<10)])
	c.n += n
	return n, err
}
