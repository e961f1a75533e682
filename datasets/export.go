package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dspalab/dspalab/internal/atomicfile"
)

// ExportSample writes the offline sample of ds (the file embedded in
// dspalab for the built-in registry, or beside a user's registry) into
// the directory dir under its own name, such as
// task_events-part-00001-first-30min.csv.gz, so that a notebook can read
// it without the network (pandas reads .csv.gz as it is). It returns the
// file's path. The copy is checked against the sample's SHA-256 (when the
// registry gives one) and appears only once complete: it is written to a
// temporary file in dir and renamed (internal/atomicfile), with the mode
// of any new file (0666 less the umask). An existing file is never replaced
// unless force is set. dir is created if missing.
func ExportSample(ds *Dataset, dir string, force bool) (string, error) {
	if ds.Sample == nil {
		return "", fmt.Errorf("datasets: %s has no offline sample; fetch a part with: dspalab datasets fetch %s", ds.Name, ds.Name)
	}
	dst := filepath.Join(dir, filepath.Base(ds.Sample.File))
	if !force {
		if _, err := os.Lstat(dst); err == nil {
			return "", fmt.Errorf("datasets: %s already exists; --force replaces it", dst)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("datasets: exporting the sample of %s: %w", ds.Name, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("datasets: exporting the sample of %s: %w", ds.Name, err)
	}
	src, err := ds.sampleOpen()
	if err != nil {
		return "", fmt.Errorf("datasets: opening the sample of %s: %w", ds.Name, err)
	}
	defer src.Close()
	var corrupt error
	err = atomicfile.Write(dst, func(w io.Writer) error {
		h := sha256.New()
		if _, err := io.Copy(io.MultiWriter(w, h), src); err != nil {
			return err
		}
		if want := ds.Sample.SHA256; want != "" {
			if got := hex.EncodeToString(h.Sum(nil)); got != want {
				corrupt = fmt.Errorf("datasets: the sample of %s is corrupt: SHA-256 %s, the registry says %s", ds.Name, got, want)
				return corrupt
			}
		}
		return nil
	})
	switch {
	case corrupt != nil:
		return "", corrupt
	case err != nil:
		return "", fmt.Errorf("datasets: writing the sample of %s to %s: %w", ds.Name, dir, err)
	}
	return dst, nil
}
