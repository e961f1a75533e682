// Package regfile opens files for reading only when they are regular
// files, and bounds what is read: a named pipe (FIFO), a device such as
// /dev/zero (perhaps behind a symbolic link), a socket or a directory is
// refused before a byte is read, so that no command hangs on a FIFO that
// nobody writes or exhausts memory on a file without end. Every dspalab
// command opens its inputs through it: scenarios, traces, actions, run
// directories, sweeps.
//
// On Unix the file is opened with O_NONBLOCK and checked with fstat, so
// that opening a FIFO does not block and what is checked is what was
// opened; elsewhere it is stat'ed first.
package regfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/dspalab/dspalab/sim/scenario"
)

// NotRegularError is a path that names something other than a regular
// file (after following symbolic links).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s); nothing was read from it", e.Path, Kind(e.Mode))
}

// Kind names a file mode's type for messages: "a directory", "a named
// pipe", "a device", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "type " + m.Type().String()
}

// TooLargeError is a file larger than a reader allows.
type TooLargeError struct {
	Path  string
	Limit int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most dspalab reads of it", e.Path, scenario.FormatByteSize(e.Limit))
}

// Open opens path for reading if it is a regular file (following
// symbolic links), and returns a *NotRegularError, without blocking,
// otherwise. Other errors are os.Open's.
func Open(path string) (*os.File, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// OpenFS opens name in fsys for reading if it is a regular file: it is
// stat'ed first (so that an os.DirFS does not block opening a FIFO) and
// the file opened is checked again.
func OpenFS(fsys fs.FS, name string) (fs.File, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Mode: fi.Mode()}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &NotRegularError{Path: name, Mode: fi.Mode()}
		}
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file path whole, refusing one larger than
// limit bytes with a *TooLargeError (after reading at most limit+1
// bytes).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, limit)
}

// ReadFileFS reads the regular file name of fsys as ReadFile does.
func ReadFileFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := OpenFS(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, name, limit)
}

func readAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	return data, nil
}

// MaxLine is the longest line the line-oriented readers of dspalab's
// files accept (CSV and JSON Lines): 1 MiB. Their lines are hundreds of
// bytes; a longer one is not such a file.
const MaxLine = 1 << 20

// LineTooLongError is a line longer than a reader allows.
type LineTooLongError struct {
	Name  string // the file, as named in messages
	Line  int64  // 1-based
	Limit int    // bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("%s line %d: longer than %s, the longest line dspalab reads (is this the right file?)", e.Name, e.Line, scenario.FormatByteSize(int64(e.Limit)))
}

// ErrLineTooLong matches every *LineTooLongError with errors.Is.
var ErrLineTooLong = errors.New("line too long")

// Is makes errors.Is(err, ErrLineTooLong) true.
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// LimitLines returns a reader of r that fails with a *LineTooLongError
// (naming the file name and the line) as soon as a line grows past limit
// bytes, before the rest of it is read: a CSV or JSON Lines reader on top
// then needs at most about limit bytes of memory for a line.
func LimitLines(r io.Reader, name string, limit int) io.Reader {
	return &lineLimiter{r: r, name: name, limit: limit, line: 1}
}

type lineLimiter struct {
	r     io.Reader
	name  string
	limit int
	line  int64 // the line being read, 1-based
	cur   int   // bytes of that line so far
	err   error
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.cur += len(b)
			break
		}
		if l.cur+i > l.limit {
			l.cur += i
			break
		}
		l.line++
		l.cur = 0
		b = b[i+1:]
	}
	if l.cur > l.limit {
		l.err = &LineTooLongError{Name: l.name, Line: l.line, Limit: l.limit}
		return n, l.err
	}
	return n, err
}

// Scanner returns a bufio.Scanner of r whose lines may be up to limit
// bytes; pair it with ScanErr to name a line that is longer.
func Scanner(r io.Reader, limit int) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(limit, 64<<10)), limit)
	return sc
}

// ScanErr returns sc.Err(), a bufio.ErrTooLong turned into a
// *LineTooLongError naming name and line, the line sc was reading (one
// past the last line it returned).
func ScanErr(sc *bufio.Scanner, name string, line int64, limit int) error {
	err := sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		return &LineTooLongError{Name: name, Line: line, Limit: limit}
	}
	return err
}

// DanglingLink returns, when path is a symbolic link whose target does
// not exist, an error saying so (with the target), for a message in place
// of the "file exists" of mkdir or the "no such file" of open; nil
// otherwise.
func DanglingLink(path string) error {
	li, err := os.Lstat(path)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	target, _ := os.Readlink(path)
	return fmt.Errorf("%s is a symbolic link to %s, which does not exist (a dangling link): remove the link, or create what it points to", path, target)
}
