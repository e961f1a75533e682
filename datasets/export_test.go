package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportSample checks that the built-in sample is written out whole
// (its SHA-256 is the registry's), never over an existing file without
// force, and that a data set without a sample says how to get data.
func TestExportSample(t *testing.T) {
	ds, err := Builtin().Lookup("clusterdata-2011-2/task_events")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	path, err := ExportSample(ds, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "task_events-part-00001-first-30min.csv.gz"); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != ds.Sample.SHA256 || ds.Sample.SHA256 == "" {
		t.Errorf("the exported file's SHA-256 is not the sample's %q", ds.Sample.SHA256)
	}
	// the mode of any file the user creates (0666 less the umask, as
	// os.WriteFile gives), not a temporary file's 0600
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(ref)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("the exported file's mode is %v, want %v (0666 less the umask)", fi.Mode().Perm(), want.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in %s, want 1 (no temporary left)", len(entries), dir)
	}
	os.WriteFile(path, []byte("mine"), 0o644)
	if _, err := ExportSample(ds, dir, false); err == nil || !strings.Contains(err.Error(), "already exists; --force replaces it") {
		t.Errorf("over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Errorf("the existing file was replaced")
	}
	if _, err := ExportSample(ds, dir, true); err != nil {
		t.Errorf("--force: %v", err)
	}
	if b, _ := os.ReadFile(path); len(b) != len(data) {
		t.Errorf("--force did not replace the file")
	}
	noSample := *ds
	noSample.Sample = nil
	if _, err := ExportSample(&noSample, dir, false); err == nil || !strings.Contains(err.Error(), "has no offline sample; fetch a part with: dspalab datasets fetch") {
		t.Errorf("without a sample: %v", err)
	}
}
