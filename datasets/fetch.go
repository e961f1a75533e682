package datasets

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dspalab/dspalab/sim/scenario"
)

// FetchOptions configure Fetch and ListObjects.
type FetchOptions struct {
	// Open connects to the object store that holds the data sets:
	// (gcs.Options).Open of package datasets/gcs for Google Cloud
	// Storage. Fetch calls it only when a part is not in the cache.
	Open func(ctx context.Context) (Store, error)
	// Jobs is how many parts download at once (default 4).
	Jobs int
	// Force downloads parts that are already in the cache again.
	Force bool
	// Progress, if set, is told the bytes to download as they become
	// known (total) and the bytes received (done); it is called from one
	// goroutine at a time.
	Progress func(done, total int64)
	// Log, if set, receives one line per part fetched or skipped.
	Log io.Writer
	// StallTimeout gives a request up when the server sends no byte for
	// that long with the connection open (default DefaultStallTimeout):
	// the download resumes from the bytes received, up to the retry
	// attempts, and the .part file keeps them for the next fetch.
	StallTimeout time.Duration

	// RetryDelay and Attempts tune Fetch's resumption of a part after
	// the store gave it up: up to Attempts times (default 4), waiting
	// RetryDelay (default 500ms), then twice as long, and so on. Give the
	// store the same (gcs.Options).
	RetryDelay time.Duration
	Attempts   int
}

// ObjectAttrs are what a Store tells of an object.
type ObjectAttrs struct {
	Name       string
	Size       int64  // bytes
	Generation int64  // the object's version; 0 when the store has none
	CRC32C     uint32 // Castagnoli, as GCS gives every object
	MD5        []byte // none for composite objects
}

// A Store reads the objects of a bucket for Fetch and ListObjects.
// Package datasets/gcs gives the one of Google Cloud Storage; it is kept
// out of this package so that what only reads the cache (the runner, the
// grader) links no HTTP client or credentials.
type Store interface {
	// Attrs returns the attributes of an object.
	Attrs(ctx context.Context, bucket, object string) (ObjectAttrs, error)
	// NewRangeReader reads an object's bytes as stored, from offset to
	// the end, of the given generation (0: the newest), without checking
	// a checksum (Fetch checks the whole download).
	NewRangeReader(ctx context.Context, bucket, object string, generation, offset int64) (io.ReadCloser, error)
	// List returns the objects whose names begin with prefix, in name
	// order, up to limit (0: all).
	List(ctx context.Context, bucket, prefix string, limit int) ([]ObjectAttrs, error)
	// Retryable reports whether a failed request may succeed if tried
	// again.
	Retryable(err error) bool
	// Explain turns an error of the store that a person can act on (a
	// missing object or bucket, access denied) into a message naming
	// uri, and returns any other error as it is.
	Explain(err error, uri string) error
	// Host names the server the requests go to, for messages.
	Host() string
	// Close releases the store.
	Close() error
}

// FetchResult is what Fetch did with one part.
type FetchResult struct {
	Part    int
	URI     string
	Path    string        // in the cache
	Size    int64         // bytes of the object
	Cached  bool          // it was in the cache already: nothing fetched
	Resumed int64         // bytes of an earlier, interrupted download reused
	Took    time.Duration // wall time of the download
	Err     error
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// explain turns an error of st into a message for a person: no network,
// a missing object or bucket, access denied.
func explain(err error, uri string, st Store) error {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.Is(err, context.Canceled) {
		return err
	}
	if e := st.Explain(err, uri); e != err {
		return e
	}
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot reach %s (no network?): lookup %s: %s", st.Host(), dnsErr.Name, dnsErr.Err)
	case errors.As(err, &opErr):
		return fmt.Errorf("cannot reach %s (no network?): %v", st.Host(), opErr)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("no answer from %s in time (no network?): %v", st.Host(), err)
	}
	return err
}

// openStore opens the store of opts, or says that there is none.
func openStore(ctx context.Context, opts FetchOptions) (Store, error) {
	if opts.Open == nil {
		return nil, errors.New("datasets: no object store to fetch from (FetchOptions.Open is not set)")
	}
	return opts.Open(ctx)
}

// DefaultStallTimeout is how long Fetch waits for a byte from the server
// before it gives a request up (FetchOptions.StallTimeout).
const DefaultStallTimeout = 30 * time.Second

// lockPoll is how often a fetch that waits for another one's lock tries it.
const lockPoll = 50 * time.Millisecond

// Fetch downloads the given parts of ds into the cache, opts.Jobs at a
// time, and returns one result per part, in order, with an error that
// joins those of the parts that failed.
//
// Each part is first asked for its attributes (size, generation, CRC32C,
// MD5). It is downloaded to a temporary .part file beside its place in the
// cache; an interrupted download leaves that file, and the next Fetch
// resumes it with a range read from where it stopped (a connection cut
// in the middle of an object, or a server that sends nothing for
// opts.StallTimeout, is resumed at once, a few times). The download is
// then checked against the object's size, CRC32C and MD5 (and the
// registry's, where known) and only then renamed into the cache, so the
// cache never holds a partial or corrupt file; a corrupt download is
// deleted.
//
// A fetch holds a lock (flock) on the .part file while it downloads, so
// that two fetches of one part into one cache, in one process or two, do
// not write the same file: the second waits, says so in opts.Log, and
// then finds the part cached.
//
// Parts already cached are skipped unless opts.Force, once their size and
// CRC32C match those recorded when they were fetched and the registry's:
// a truncated or damaged file in the cache is downloaded again.
func Fetch(ctx context.Context, c Cache, ds *Dataset, parts []int, opts FetchOptions) ([]FetchResult, error) {
	results := make([]FetchResult, len(parts))
	var todo []int
	for i, n := range parts {
		results[i] = FetchResult{Part: n, URI: ds.URI(n), Path: c.Path(ds, n)}
		if !opts.Force {
			ok, damage := c.intact(ds, n)
			if ok {
				results[i].Cached = true
				if fi, err := os.Stat(results[i].Path); err == nil {
					results[i].Size = fi.Size()
				}
				logf(opts.Log, "%s: already in the cache (%s)\n", results[i].URI, results[i].Path)
				continue
			}
			if damage != "" {
				logf(opts.Log, "%s: the cached copy %s is damaged (%s); fetching it again\n", results[i].URI, results[i].Path, damage)
			}
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return results, nil
	}
	client, err := openStore(ctx, opts)
	if err != nil {
		for _, i := range todo {
			results[i].Err = err // none of them was fetched
		}
		return results, err
	}
	defer client.Close()

	prog := &progress{fn: opts.Progress}
	if opts.Log != nil {
		opts.Log = &syncWriter{w: opts.Log}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(cmpOr(opts.Jobs, 4), len(todo)) {
		wg.Go(func() {
			for i := range jobs {
				r := &results[i]
				start := time.Now()
				r.Err = fetchPart(ctx, client, c, ds, r, opts, prog)
				r.Took = time.Since(start)
				switch {
				case r.Err != nil:
					r.Err = fmt.Errorf("%s: %w", ds.Name, explain(r.Err, r.URI, client))
					continue
				case r.Cached:
					logf(opts.Log, "%s: another fetch cached it meanwhile (%s)\n", r.URI, r.Path)
					continue
				}
				line := fmt.Sprintf("%s: fetched %d bytes in %s (%s), verified against the object's size and checksums", r.URI, r.Size,
					r.Took.Round(time.Millisecond), scenario.FormatBandwidth(float64(r.Size-r.Resumed)/max(r.Took.Seconds(), 1e-3)))
				if r.Resumed > 0 {
					line += fmt.Sprintf(", resumed after %d bytes", r.Resumed)
				}
				logf(opts.Log, "%s\n", line)
			}
		})
	}
	for _, i := range todo {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return results, errors.Join(errs...)
}

func logf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format, a...)
	}
}

// progress serialises the progress callback of parallel downloads.
type progress struct {
	mu          sync.Mutex
	done, total int64
	fn          func(done, total int64)
}

func (p *progress) add(done, total int64) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += done
	p.total += total
	p.fn(p.done, p.total)
}

// syncWriter serialises the writes of parallel downloads.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// progressWriter reports the bytes written through it.
type progressWriter struct {
	w io.Writer
	p *progress
}

func (pw progressWriter) Write(b []byte) (int, error) {
	n, err := pw.w.Write(b)
	pw.p.add(int64(n), 0)
	return n, err
}

// fetchPart downloads one part into the cache (see Fetch) and sets r's
// Size, Resumed and, when another fetch cached the part while this one
// waited for its lock, Cached.
func fetchPart(ctx context.Context, client Store, c Cache, ds *Dataset, r *FetchResult, opts FetchOptions, prog *progress) error {
	n, dst := r.Part, r.Path
	stall := cmpOr(opts.StallTimeout, DefaultStallTimeout)
	object := ds.ObjectName(n)
	wd := newWatchdog(ctx, stall)
	attrs, err := client.Attrs(wd.ctx, ds.Bucket, object)
	if wd.stop() && ctx.Err() == nil {
		return fmt.Errorf("no answer from %s for %s asking for %s (the server stalls; --stall-timeout sets how long to wait)", client.Host(), stall, r.URI)
	}
	if err != nil {
		return fmt.Errorf("asking for %s: %w", r.URI, err)
	}
	r.Size = attrs.Size
	known := ds.Info(n)
	wantCRC := encodeCRC32C(attrs.CRC32C) // GCS gives every object one
	wantMD5 := ""                         // composite objects have none
	if len(attrs.MD5) > 0 {
		wantMD5 = encodeMD5(attrs.MD5)
	}
	if known.Size > 0 && known.Size != attrs.Size || known.CRC32C != "" && wantCRC != "" && known.CRC32C != wantCRC {
		return fmt.Errorf("the object %s differs from what the registry knows (%d bytes, CRC32C %s; expected %d bytes, CRC32C %s): the bucket changed or the registry is wrong",
			ds.URI(n), attrs.Size, wantCRC, known.Size, known.CRC32C)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("creating the cache: %w", err)
	}
	part := dst + ".g" + strconv.FormatInt(attrs.Generation, 10) + ".part"
	f, waited, err := lockPart(ctx, part, r.URI, opts.Log)
	if err != nil {
		return err
	}
	defer f.Close()
	if ok, _ := c.intact(ds, n); waited && ok {
		r.Cached = true
		os.Remove(part) // created while waiting; the lock is still held
		return nil
	}
	removeStale(dst, part)
	sums := newChecksums()
	offset, err := io.Copy(sums, f) // what an earlier download left
	if err != nil {
		return fmt.Errorf("reading %s: %w", part, err)
	}
	if offset > attrs.Size {
		if err := f.Truncate(0); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		sums, offset = newChecksums(), 0
	}
	r.Resumed = offset
	prog.add(offset, attrs.Size)

	attempts := cmpOr(opts.Attempts, 4)
	stalls := 0
	for try := 1; offset < attrs.Size; try++ {
		wd := newWatchdog(ctx, stall)
		// of attrs.Generation: resume the same object, not a newer one
		rd, err := client.NewRangeReader(wd.ctx, ds.Bucket, object, attrs.Generation, offset)
		if err == nil {
			var got int64
			// no more than the object's bytes: a server that sends on
			// without end must not fill the disk
			got, err = io.Copy(io.MultiWriter(progressWriter{f, prog}, sums), io.LimitReader(wd.watch(rd), attrs.Size-offset))
			rd.Close()
			offset += got
		}
		stalled := wd.stop() && ctx.Err() == nil
		if stalled {
			stalls++
			err = fmt.Errorf("no bytes from %s for %s%s (the server stalls; --stall-timeout sets how long to wait)",
				client.Host(), stall, map[bool]string{true: "", false: fmt.Sprintf(", %d times", stalls)}[stalls == 1])
		}
		if err == nil && offset < attrs.Size || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("the server ended the download after %d of the object's %d bytes: %w", offset, attrs.Size, io.ErrUnexpectedEOF)
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil || try >= attempts || !stalled && !client.Retryable(err) {
			err = fmt.Errorf("downloading %s: %w", r.URI, err)
			if offset > 0 {
				return fmt.Errorf("%w (the %d bytes received are kept in %s; fetch again to resume)", err, offset, part)
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(cmpOr(opts.RetryDelay, 500*time.Millisecond) << (try - 1)):
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if d := sums.mismatch(attrs.Size, wantCRC, wantMD5); d != "" {
		os.Remove(part)
		return fmt.Errorf("the download of %s is corrupt (%s); it was deleted, nothing was cached", ds.URI(n), d)
	}
	if d := sums.mismatch(known.Size, known.CRC32C, known.MD5); d != "" {
		os.Remove(part)
		return fmt.Errorf("the download of %s does not match the registry (%s); it was deleted, nothing was cached", ds.URI(n), d)
	}
	m := meta{URI: ds.URI(n), Generation: attrs.Generation, Size: attrs.Size, CRC32C: wantCRC, MD5: wantMD5}
	if err := writeFileAtomic(metaPath(dst), mustJSON(m)); err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	if err := os.Rename(part, dst); err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	return f.Close() // releases the lock: a fetch that waited finds the part cached
}

// lockPart opens the download file part, creating it, and takes its lock,
// waiting while another fetch (of this process or another) holds it; it
// logs once that it waits. A file that the holder renamed into the cache
// or removed while this one waited is opened anew, so the lock returned is
// always on the file at part.
func lockPart(ctx context.Context, part, uri string, log io.Writer) (f *os.File, waited bool, err error) {
	for {
		f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, waited, fmt.Errorf("creating the download file: %w", err)
		}
		for {
			ok, err := tryLock(f)
			if err != nil {
				f.Close()
				return nil, waited, fmt.Errorf("locking %s: %w", part, err)
			}
			if ok {
				break
			}
			if !waited {
				logf(log, "%s: waiting: another fetch holds %s\n", uri, part)
				waited = true
			}
			select {
			case <-ctx.Done():
				f.Close()
				return nil, waited, ctx.Err()
			case <-time.After(lockPoll):
			}
		}
		if sameFile(f, part) {
			return f, waited, nil
		}
		f.Close() // renamed into the cache or removed by the holder
	}
}

// sameFile reports whether the open file f is still the file at path (not
// renamed away or removed since it was opened).
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// removeStale removes the downloads of dst other than part (of an earlier
// generation of the object) that no fetch holds.
func removeStale(dst, part string) {
	stale, _ := filepath.Glob(globEscape(dst) + ".*.part")
	for _, s := range stale {
		if s == part {
			continue
		}
		f, err := os.OpenFile(s, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if ok, _ := tryLock(f); ok {
			os.Remove(s)
		}
		f.Close()
	}
}

// watchdog cancels a request when the server sends no byte for d: its
// context is the request's, and every byte read through watch restarts
// the clock.
type watchdog struct {
	ctx    context.Context
	cancel context.CancelFunc
	timer  *time.Timer
	d      time.Duration
	fired  atomic.Bool
}

func newWatchdog(parent context.Context, d time.Duration) *watchdog {
	w := &watchdog{d: d}
	w.ctx, w.cancel = context.WithCancel(parent)
	w.timer = time.AfterFunc(d, func() { w.fired.Store(true); w.cancel() })
	return w
}

// watch returns r, each read that gives bytes restarting the clock.
func (w *watchdog) watch(r io.Reader) io.Reader { return watched{r, w} }

// stop ends the watch and the request's context and reports whether the
// clock ran out (the server stalled).
func (w *watchdog) stop() bool {
	w.timer.Stop()
	w.cancel()
	return w.fired.Load()
}

type watched struct {
	r io.Reader
	w *watchdog
}

func (wr watched) Read(p []byte) (int, error) {
	n, err := wr.r.Read(p)
	if n > 0 {
		wr.w.timer.Reset(wr.w.d)
	}
	return n, err
}

// ObjectInfo is one object of a bucket listing.
type ObjectInfo struct {
	Name   string
	Size   int64
	CRC32C string
	MD5    string
}

// ListObjects lists the objects of ds's bucket under the directory of its
// objects (for clusterdata-2011-2/task_events, task_events/), up to limit
// objects (0: all).
func ListObjects(ctx context.Context, ds *Dataset, limit int, opts FetchOptions) ([]ObjectInfo, error) {
	client, err := openStore(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	prefix := ds.ObjectName(0)
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		prefix = prefix[:i+1]
	} else {
		prefix = ""
	}
	objs, err := client.List(ctx, ds.Bucket, prefix, limit)
	out := make([]ObjectInfo, 0, len(objs))
	for _, a := range objs {
		info := ObjectInfo{Name: a.Name, Size: a.Size, CRC32C: encodeCRC32C(a.CRC32C)}
		if len(a.MD5) > 0 {
			info.MD5 = encodeMD5(a.MD5)
		}
		out = append(out, info)
	}
	if err != nil {
		return out, fmt.Errorf("%s: listing gs://%s/%s: %w", ds.Name, ds.Bucket, prefix, explain(err, "gs://"+ds.Bucket+"/"+prefix, client))
	}
	return out, nil
}

func encodeMD5(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // plain data: cannot happen
	}
	return append(b, '\n')
}
