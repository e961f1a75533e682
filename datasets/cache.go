package datasets

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/regfile"
)

// Cache is the local copy of fetched data sets, under Dir:
// Dir/gcs/BUCKET/OBJECT, with a sidecar OBJECT.meta.json that records the
// object's attributes when it was fetched. A file appears there only
// complete and verified (it is downloaded to OBJECT.gGENERATION.part and
// renamed), so a file in the cache can be read as it is.
type Cache struct {
	Dir string
}

// DefaultCache returns the cache in $DSPALAB_CACHE, else in the dspalab
// directory of os.UserCacheDir (~/.cache/dspalab on Linux).
func DefaultCache() (Cache, error) {
	if d := os.Getenv("DSPALAB_CACHE"); d != "" {
		return Cache{Dir: d}, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return Cache{}, fmt.Errorf("datasets: no cache directory (set DSPALAB_CACHE): %w", err)
	}
	return Cache{Dir: filepath.Join(d, "dspalab")}, nil
}

// Path returns where part n of ds is (or would be) cached.
func (c Cache) Path(ds *Dataset, n int) string {
	return filepath.Join(c.Dir, "gcs", ds.Bucket, filepath.FromSlash(ds.ObjectName(n)))
}

// Has reports whether part n of ds is in the cache (never for a Cache
// without a directory).
func (c Cache) Has(ds *Dataset, n int) bool {
	if c.Dir == "" {
		return false
	}
	fi, err := os.Stat(c.Path(ds, n))
	return err == nil && fi.Mode().IsRegular()
}

// intact reports whether part n of ds is in the cache and whole: its size
// and CRC32C match those recorded when it was fetched (the sidecar) and the
// registry's, where known (a file without either is taken as it is).
// Otherwise damage says what differs, or is "" when the part is not there.
func (c Cache) intact(ds *Dataset, n int) (ok bool, damage string) {
	if !c.Has(ds, n) {
		return false, ""
	}
	path := c.Path(ds, n)
	fi, err := os.Stat(path)
	if err != nil {
		return false, err.Error()
	}
	var sizes []int64
	var crcs []string
	if m, err := readMeta(path); err == nil {
		sizes, crcs = append(sizes, m.Size), append(crcs, m.CRC32C)
	}
	k := ds.Info(n)
	sizes, crcs = append(sizes, k.Size), append(crcs, k.CRC32C)
	for _, want := range sizes {
		if want > 0 && fi.Size() != want {
			return false, fmt.Sprintf("%d bytes instead of %d", fi.Size(), want)
		}
	}
	if !slices.ContainsFunc(crcs, func(s string) bool { return s != "" }) {
		return true, ""
	}
	f, err := regfile.Open(path)
	if err != nil {
		return false, err.Error()
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, f); err != nil {
		return false, err.Error()
	}
	got := encodeCRC32C(h.Sum32())
	for _, want := range crcs {
		if want != "" && got != want {
			return false, fmt.Sprintf("CRC32C %s instead of %s", got, want)
		}
	}
	return true, ""
}

// meta is the sidecar of a cached file: the object's attributes when it
// was fetched.
type meta struct {
	URI        string `json:"uri"`
	Generation int64  `json:"generation"`
	Size       int64  `json:"size"`
	CRC32C     string `json:"crc32c,omitempty"`
	MD5        string `json:"md5,omitempty"`
}

func metaPath(path string) string { return path + ".meta.json" }

func readMeta(path string) (*meta, error) {
	b, err := os.ReadFile(metaPath(path))
	if err != nil {
		return nil, err
	}
	var m meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", metaPath(path), err)
	}
	return &m, nil
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so path is never partly written.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// checksums accumulates the size, CRC32C (Castagnoli) and MD5 of a byte
// stream, as GCS computes them for an object.
type checksums struct {
	size int64
	crc  hash.Hash32
	md5  hash.Hash
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newChecksums() *checksums {
	return &checksums{crc: crc32.New(castagnoli), md5: md5.New()}
}

func (c *checksums) Write(p []byte) (int, error) {
	c.size += int64(len(p))
	c.crc.Write(p)
	c.md5.Write(p)
	return len(p), nil
}

// CRC32C returns the CRC32C in base64 of its big-endian bytes, as GCS
// shows it ("01jBPA==").
func (c *checksums) CRC32C() string { return encodeCRC32C(c.crc.Sum32()) }

// MD5 returns the MD5 in base64, as GCS shows it.
func (c *checksums) MD5() string { return base64.StdEncoding.EncodeToString(c.md5.Sum(nil)) }

func encodeCRC32C(v uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return base64.StdEncoding.EncodeToString(b[:])
}

// mismatch compares the checksums with an expected size, CRC32C and MD5
// (empty or zero: unknown) and says what differs, or "".
func (c *checksums) mismatch(size int64, crc, md5sum string) string {
	var diffs []string
	if size > 0 && c.size != size {
		diffs = append(diffs, fmt.Sprintf("%d bytes instead of %d", c.size, size))
	}
	if crc != "" && c.CRC32C() != crc {
		diffs = append(diffs, fmt.Sprintf("CRC32C %s instead of %s", c.CRC32C(), crc))
	}
	if md5sum != "" && c.MD5() != md5sum {
		diffs = append(diffs, fmt.Sprintf("MD5 %s instead of %s", c.MD5(), md5sum))
	}
	return strings.Join(diffs, ", ")
}

// Verification results.
const (
	VerifyOK      = "ok"      // the checksums match
	VerifyMissing = "missing" // not in the cache
	VerifyCorrupt = "CORRUPT" // a checksum or the size differs
	VerifyNoSums  = "no sums" // nothing to compare with
	VerifyError   = "error"   // the file could not be read
	// VerifyMismatch: the checksums match (or none are known) but the
	// file does not hold the rows the registry declares, which the
	// limits estimate relies on: the registry is wrong.
	VerifyMismatch = "MISMATCH"
)

// VerifyResult is the check of one cached part.
type VerifyResult struct {
	Part   int
	Path   string
	Status string // one of the Verify constants
	Detail string // what was compared, or what differs
}

// Verify recomputes the size, CRC32C and MD5 of cached part n of ds and
// compares them with the object's attributes recorded when it was fetched
// and with the registry's, where known.
func (c Cache) Verify(ds *Dataset, n int) VerifyResult {
	res := VerifyResult{Part: n, Path: c.Path(ds, n)}
	f, err := regfile.Open(res.Path)
	if errors.Is(err, fs.ErrNotExist) {
		res.Status, res.Detail = VerifyMissing, "not in the cache"
		return res
	}
	if err != nil {
		res.Status, res.Detail = VerifyError, err.Error()
		return res
	}
	defer f.Close()
	sums := newChecksums()
	if _, err := io.Copy(sums, f); err != nil {
		res.Status, res.Detail = VerifyError, err.Error()
		return res
	}
	var against []string
	var diffs []string
	if m, err := readMeta(res.Path); err == nil {
		against = append(against, "the object's attributes")
		if d := sums.mismatch(m.Size, m.CRC32C, m.MD5); d != "" {
			diffs = append(diffs, d+" (object)")
		}
	}
	if k := ds.Info(n); k.Size > 0 || k.CRC32C != "" || k.MD5 != "" {
		against = append(against, "the registry")
		if d := sums.mismatch(k.Size, k.CRC32C, k.MD5); d != "" {
			diffs = append(diffs, d+" (registry)")
		}
	}
	var rowsDiff string
	if k := ds.Info(n); k.Rows > 0 && len(diffs) == 0 {
		rows, err := CountRows(res.Path, func() (io.ReadCloser, error) { return os.Open(res.Path) })
		switch {
		case err != nil:
			res.Status, res.Detail = VerifyError, err.Error()
			return res
		case rows != k.Rows:
			rowsDiff = rowsMismatch(rows, k.Rows, ds.Origin)
		}
	}
	switch {
	case len(diffs) > 0:
		res.Status, res.Detail = VerifyCorrupt, strings.Join(diffs, "; ")
	case rowsDiff != "":
		res.Status, res.Detail = VerifyMismatch, rowsDiff
	case len(against) == 0:
		res.Status, res.Detail = VerifyNoSums, fmt.Sprintf("%d bytes, CRC32C %s; no recorded checksums to compare with", sums.size, sums.CRC32C())
	default:
		res.Status, res.Detail = VerifyOK, fmt.Sprintf("%d bytes, CRC32C %s, MD5 %s match %s", sums.size, sums.CRC32C(), sums.MD5(), strings.Join(against, " and "))
	}
	return res
}

// Remove deletes the cached parts of ds (with their sidecars and any
// unfinished downloads) and returns how many files and bytes it freed.
func (c Cache) Remove(ds *Dataset, parts []int) (files int, bytes int64, err error) {
	root := filepath.Join(c.Dir, "gcs") + string(filepath.Separator)
	for _, n := range parts {
		p := c.Path(ds, n)
		if !strings.HasPrefix(p, root) { // the registry's checks keep bucket and object inside
			return files, bytes, fmt.Errorf("datasets: %s is outside the cache %s: nothing removed", p, root)
		}
		matches, _ := filepath.Glob(globEscape(p) + ".*.part")
		for _, f := range append([]string{p, metaPath(p)}, matches...) {
			fi, statErr := os.Lstat(f)
			if statErr != nil {
				continue
			}
			if rmErr := os.Remove(f); rmErr != nil {
				return files, bytes, fmt.Errorf("datasets: removing %s: %w", f, rmErr)
			}
			if !strings.HasSuffix(f, ".meta.json") {
				files++
				bytes += fi.Size()
			}
		}
	}
	return files, bytes, nil
}

// RemoveAll deletes the whole cache of data sets (Dir/gcs) and returns how
// many files and bytes it freed.
func (c Cache) RemoveAll() (files int, bytes int64, err error) {
	root := filepath.Join(c.Dir, "gcs")
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".meta.json") {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			files++
			bytes += fi.Size()
		}
		return nil
	})
	if walkErr != nil && !errors.Is(walkErr, fs.ErrNotExist) {
		return 0, 0, walkErr
	}
	if err := os.RemoveAll(root); err != nil {
		return 0, 0, fmt.Errorf("datasets: removing the cache: %w", err)
	}
	return files, bytes, nil
}

// globEscape escapes the pattern characters of a path for filepath.Glob.
func globEscape(p string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(p)
}

// rowsMismatch says that a file holds rows rows where the registry origin
// declares declared.
func rowsMismatch(rows, declared int64, origin string) string {
	return fmt.Sprintf("%s, but the %s registry declares %d (the limits estimate uses the declared rows): correct rows in the registry",
		plural.Count(rows, "row"), origin, declared)
}

// CountRows counts the lines of a CSV or CSV.gz file (malformed ones too)
// as a trace Reader reads them; name is for messages.
func CountRows(name string, open func() (io.ReadCloser, error)) (int64, error) {
	r := NewReader(&TraceSpec{Files: []TraceFile{{Name: name, Open: open}}, Key: -1, TimeUnit: 1, Speedup: 1}, 0, 1)
	defer r.Close()
	for {
		if _, err := r.Next(); err == io.EOF {
			return r.Stats().Lines, nil
		} else if err != nil {
			return r.Stats().Lines, err
		}
	}
}

// VerifySample checks the offline sample of ds, if it has one: that its
// file holds the rows the registry declares (and its SHA-256, if given).
// Part is the sample's part and Path its file.
func VerifySample(ds *Dataset) (VerifyResult, bool) {
	s := ds.Sample
	if s == nil {
		return VerifyResult{}, false
	}
	res := VerifyResult{Part: s.Part, Path: "sample/" + s.File}
	if ds.Origin != "built-in" {
		res.Path = filepath.Join(ds.dir, s.File)
	}
	open := func() (io.ReadCloser, error) { return ds.sampleOpen() }
	f, err := open()
	if err != nil {
		res.Status, res.Detail = VerifyError, err.Error()
		return res, true
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		res.Status, res.Detail = VerifyError, err.Error()
		return res, true
	}
	if sum := hex.EncodeToString(h.Sum(nil)); s.SHA256 != "" && sum != s.SHA256 {
		res.Status, res.Detail = VerifyCorrupt, fmt.Sprintf("SHA-256 %s instead of %s (registry)", sum, s.SHA256)
		return res, true
	}
	rows, err := CountRows(res.Path, open)
	switch {
	case err != nil:
		res.Status, res.Detail = VerifyError, err.Error()
	case s.Rows > 0 && rows != s.Rows:
		res.Status, res.Detail = VerifyMismatch, rowsMismatch(rows, s.Rows, ds.Origin)
	case s.Rows > 0:
		res.Status, res.Detail = VerifyOK, fmt.Sprintf("%s match the registry", plural.Count(rows, "row"))
	default:
		res.Status, res.Detail = VerifyNoSums, fmt.Sprintf("%s; the registry declares none", plural.Count(rows, "row"))
	}
	return res, true
}
