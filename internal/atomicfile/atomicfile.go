// Package atomicfile writes a file so that it appears complete or not at
// all: into a temporary file in the same directory, synced, then renamed
// over the destination. A failed write leaves the old file untouched and
// removes the temporary one.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write calls write with a temporary file in path's directory (which must
// exist) and renames it over path when write and the sync succeed. The new
// file has the mode of any file a program creates, 0666 less the umask
// (0644 under the usual umask 022), not os.CreateTemp's 0600. It returns the first error of write, the file system
// or the rename; the temporary file is then removed.
func Write(path string, write func(io.Writer) error) error {
	f, err := createTemp(filepath.Dir(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// createTemp creates a new file ".dspalab-tmp-RANDOM" in dir with mode
// 0666 (the umask applies), as os.CreateTemp does with 0600.
func createTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		var b [8]byte
		_, _ = rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, ".dspalab-tmp-"+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}
