// Package atomicfile writes a file so that it appears complete or not at
// all: into a temporary file in the same directory, synced, then renamed
// over the destination. A failed write leaves the old file untouched and
// removes the temporary one.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write calls write with a temporary file in path's directory (which must
// exist) and renames it over path when write and the sync succeed. The new
// file has mode 0644. It returns the first error of write, the file system
// or the rename; the temporary file is then removed.
func Write(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".dspalab-tmp-*")
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
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
