package gcs

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/dspalab/dspalab/datasets"
)

// The part files of the cluster trace in package datasets' testdata.
const (
	taskFile = "testdata/task_events-part-00001-of-00500.csv.gz"
	jobFile  = "testdata/job_events-part-00001-of-00500.csv.gz"
)

// gcsProxy stands between the client and the fake GCS server, to cut
// connections in the middle of an object, go down, corrupt bytes in
// transit or deny a bucket, and to record the requests.
type gcsProxy struct {
	target string
	mu     sync.Mutex
	// cut maps a download path ("/bucket/object") to the bytes after
	// which its next download is cut; the entry is then removed.
	cut map[string]int64
	// down aborts every request; flip corrupts a byte of downloads of
	// that path; deny answers 403 for requests about that bucket.
	down     bool
	flip     string
	deny     string
	requests []string // "GET /bucket/object bytes=N-"
	inflight int
	maxIn    int
	slow     time.Duration // a pause in every download, to see parallelism
	// stall maps a download path to the bytes of each response after
	// which the server stops sending, the connection open, until the
	// client gives up; stallMeta stalls every metadata request so.
	stall     map[string]int64
	stallMeta bool
}

// requestPath names a request for the proxy's maps and log: a download
// (a JSON API request with alt=media) by "/BUCKET/OBJECT", any other by
// its path.
func requestPath(r *http.Request) (path string, download bool) {
	if r.URL.Query().Get("alt") != "media" {
		return r.URL.Path, false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/storage/v1/b/")
	bucket, object, ok2 := strings.Cut(rest, "/o/")
	if !ok || !ok2 {
		return r.URL.Path, true
	}
	return "/" + bucket + "/" + object, true
}

func (p *gcsProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, download := requestPath(r)
	p.mu.Lock()
	p.requests = append(p.requests, strings.TrimSpace(r.Method+" "+path+" "+strings.TrimPrefix(r.Header.Get("Range"), "bytes=")))
	down, cutAt, hasCut := p.down, p.cut[path], false
	if _, ok := p.cut[path]; ok && download {
		hasCut = true
		delete(p.cut, path)
	}
	flip := download && p.flip == path
	denied := p.deny != "" && (strings.HasPrefix(path, "/"+p.deny+"/") || strings.Contains(path, "/b/"+p.deny+"/"))
	if download {
		p.inflight++
		p.maxIn = max(p.maxIn, p.inflight)
	}
	slow := p.slow
	stallAt, stalls := p.stall[path]
	stalls = stalls && download
	stallMeta := p.stallMeta && !download
	p.mu.Unlock()
	if stallMeta {
		<-r.Context().Done() // the connection stays open, no answer
		return
	}
	if download {
		defer func() { p.mu.Lock(); p.inflight--; p.mu.Unlock() }()
	}
	if down {
		panic(http.ErrAbortHandler) // the connection drops
	}
	if denied {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error": {"code": 403, "message": "anonymous caller does not have storage.objects.get access"}}`)
		return
	}
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	time.Sleep(slow)
	body := io.Reader(resp.Body)
	if flip {
		b, _ := io.ReadAll(resp.Body)
		if len(b) > 1000 {
			b[1000] ^= 0xff
		}
		body = bytes.NewReader(b)
	}
	if stalls {
		io.CopyN(w, body, stallAt)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the connection stays open, no more bytes
		return
	}
	if hasCut {
		io.CopyN(w, body, cutAt)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // cut in the middle of the object
	}
	io.Copy(w, body)
}

func (p *gcsProxy) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

func (p *gcsProxy) set(f func(p *gcsProxy)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

// readTestdata reads a file: name is relative to package datasets'
// directory (its testdata), or absolute.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	if !filepath.IsAbs(name) {
		name = filepath.Join("..", name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeGCS serves the real part files of the cluster trace (and extra
// objects) from fake-gcs-server, behind a gcsProxy. It returns the proxy
// and the options to reach it.
func fakeGCS(t *testing.T, extra ...fakestorage.Object) (*gcsProxy, datasets.FetchOptions, *Options) {
	t.Helper()
	objects := append([]fakestorage.Object{
		{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "clusterdata-2011-2", Name: "task_events/part-00001-of-00500.csv.gz"}, Content: readTestdata(t, taskFile)},
		{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "clusterdata-2011-2", Name: "job_events/part-00001-of-00500.csv.gz"}, Content: readTestdata(t, jobFile)},
	}, extra...)
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects: objects, Scheme: "http", Host: "127.0.0.1",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	p := &gcsProxy{target: srv.URL(), cut: map[string]int64{}, stall: map[string]int64{}}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	g := &Options{Endpoint: ts.URL, RetryDelay: 5 * time.Millisecond, Attempts: 3}
	open := func(ctx context.Context) (datasets.Store, error) { return g.Open(ctx) } // sees later changes of g
	return p, datasets.FetchOptions{Open: open, RetryDelay: g.RetryDelay, Attempts: g.Attempts}, g
}

func taskEvents(t testing.TB) *datasets.Dataset {
	ds, err := datasets.Builtin().Lookup("clusterdata-2011-2/task_events")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func jobEvents(t testing.TB) *datasets.Dataset {
	ds, err := datasets.Builtin().Lookup("clusterdata-2011-2/job_events")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// cacheHolds checks that the cache holds exactly want for part n (nil:
// nothing, and no download left over).
func cacheHolds(t *testing.T, c datasets.Cache, ds *datasets.Dataset, n int, want []byte) {
	t.Helper()
	got, err := os.ReadFile(c.Path(ds, n))
	switch {
	case want == nil && err == nil:
		t.Errorf("%s is in the cache", c.Path(ds, n))
	case want != nil && err != nil:
		t.Errorf("not cached: %v", err)
	case want != nil && !bytes.Equal(got, want):
		t.Errorf("cached %d bytes that differ from the object's %d", len(got), len(want))
	}
	if want != nil {
		if left, _ := filepath.Glob(c.Path(ds, n) + ".*.part"); len(left) > 0 {
			t.Errorf("downloads left: %v", left)
		}
	}
}

// Fetch downloads real files, verifies them and caches them with their
// attributes; a second fetch finds them cached; Verify checks them again.
func TestFetchAndVerify(t *testing.T) {
	p, opts, _ := fakeGCS(t)
	c := datasets.Cache{Dir: t.TempDir()}
	var log bytes.Buffer
	opts.Log = &log
	var done, total int64
	opts.Progress = func(d, tot int64) { done, total = d, tot }
	for _, ds := range []*datasets.Dataset{taskEvents(t), jobEvents(t)} {
		res, err := datasets.Fetch(context.Background(), c, ds, []int{1}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r := res[0]; r.Cached || r.Resumed != 0 || r.Size != ds.Info(1).Size {
			t.Errorf("result %+v", r)
		}
		if done != ds.Info(1).Size || total != done {
			t.Errorf("progress %d of %d bytes", done, total)
		}
	}
	cacheHolds(t, c, taskEvents(t), 1, readTestdata(t, taskFile))
	cacheHolds(t, c, jobEvents(t), 1, readTestdata(t, jobFile))
	if !strings.Contains(log.String(), "gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz: fetched 924634 bytes in ") {
		t.Errorf("log:\n%s", log.String())
	}
	// Verify reads what the fetch recorded beside the file
	if v := c.Verify(taskEvents(t), 1); v.Status != datasets.VerifyOK ||
		v.Detail != "924634 bytes, CRC32C 01jBPA==, MD5 H0zmR2yxGwh0SgOLK/4dRQ== match the object's attributes and the registry" {
		t.Errorf("verify: %+v", v)
	}
	n := len(p.log())
	res, err := datasets.Fetch(context.Background(), c, taskEvents(t), []int{1}, opts)
	if err != nil || !res[0].Cached || len(p.log()) != n {
		t.Errorf("a second fetch: %+v, %v, %d requests", res, err, len(p.log())-n)
	}

	// a cached file damaged later is found by Verify
	path := c.Path(jobEvents(t), 1)
	b := readTestdata(t, path)
	b[10] ^= 1
	os.WriteFile(path, b, 0o644)
	if v := c.Verify(jobEvents(t), 1); v.Status != datasets.VerifyCorrupt || !strings.Contains(v.Detail, "CRC32C") {
		t.Errorf("verify a damaged file: %+v", v)
	}
	if v := c.Verify(jobEvents(t), 2); v.Status != datasets.VerifyMissing {
		t.Errorf("verify a missing part: %+v", v)
	}
	files, bytes, err := c.Remove(jobEvents(t), []int{1, 2})
	if err != nil || files != 1 || bytes != 125467 || c.Has(jobEvents(t), 1) {
		t.Errorf("remove: %d files, %d bytes, %v", files, bytes, err)
	}
}

// parts is a user data set of three objects, for parallel fetches.
func partsDataset(t *testing.T) (*datasets.Dataset, []fakestorage.Object, [][]byte) {
	file := filepath.Join(t.TempDir(), "test.yaml")
	if err := os.WriteFile(file, []byte(`datasets:
  - name: course/parts
    bucket: course-bucket
    object: data/p{part}.csv.gz
    parts: 3
    columns: [timestamp, missing_info, job_id, event_type, user, scheduling_class, job_name, logical_job_name]
    time_column: timestamp
    time_unit: us
`), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := datasets.LoadRegistry(file)
	if err != nil {
		t.Fatal(err)
	}
	contents := [][]byte{readTestdata(t, jobFile), readTestdata(t, taskFile), readTestdata(t, "sample/task_events-part-00001-first-30min.csv.gz")}
	var objs []fakestorage.Object
	for i, b := range contents {
		objs = append(objs, fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "course-bucket", Name: fmt.Sprintf("data/p%d.csv.gz", i)}, Content: b})
	}
	ds, err := reg.Lookup("course/parts")
	if err != nil {
		t.Fatal(err)
	}
	return ds, objs, contents
}

// Parts download in parallel.
func TestFetchParallelParts(t *testing.T) {
	ds, objs, contents := partsDataset(t)
	p, opts, _ := fakeGCS(t, objs...)
	p.slow = 50 * time.Millisecond
	c := datasets.Cache{Dir: t.TempDir()}
	opts.Jobs = 3
	res, err := datasets.Fetch(context.Background(), c, ds, []int{0, 1, 2}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		cacheHolds(t, c, ds, i, contents[i])
		if res[i].Part != i || res[i].Size != int64(len(contents[i])) {
			t.Errorf("result %d: %+v", i, res[i])
		}
	}
	if p.maxIn < 2 {
		t.Errorf("at most %d downloads at once, want parallel ones", p.maxIn)
	}
}

// A connection cut in the middle of an object is resumed with a range
// read, and the file is complete and verified.
func TestFetchResumeAfterCut(t *testing.T) {
	p, opts, _ := fakeGCS(t)
	obj := "/clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"
	p.cut[obj] = 300000
	c := datasets.Cache{Dir: t.TempDir()}
	if _, err := datasets.Fetch(context.Background(), c, taskEvents(t), []int{1}, opts); err != nil {
		t.Fatal(err)
	}
	cacheHolds(t, c, taskEvents(t), 1, readTestdata(t, taskFile))
	if !slices.Contains(p.log(), "GET "+obj+" 300000-") {
		t.Errorf("no range read from the cut: %v", p.log())
	}
}

// An interrupted fetch keeps what it received; the next one resumes from
// there with a range read.
func TestFetchResumeAcrossRuns(t *testing.T) {
	p, opts, _ := fakeGCS(t)
	obj := "/clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"
	c := datasets.Cache{Dir: t.TempDir()}
	// the network goes down after 400000 bytes
	p.cut[obj] = 400000
	var once sync.Once
	opts.Progress = func(done, total int64) {
		if done >= 400000 {
			once.Do(func() { p.set(func(p *gcsProxy) { p.down = true }) })
		}
	}
	_, err := datasets.Fetch(context.Background(), c, taskEvents(t), []int{1}, opts)
	if err == nil || !strings.Contains(err.Error(), "(the 400000 bytes received are kept in ") || !strings.Contains(err.Error(), "; fetch again to resume)") {
		t.Fatalf("err = %v", err)
	}
	cacheHolds(t, c, taskEvents(t), 1, nil)
	left, _ := filepath.Glob(c.Path(taskEvents(t), 1) + ".g*.part")
	if len(left) != 1 {
		t.Fatalf("downloads left: %v", left)
	}
	if fi, err := os.Stat(left[0]); err != nil || fi.Size() != 400000 {
		t.Fatalf("the partial download: %v %v", fi, err)
	}

	p.set(func(p *gcsProxy) { p.down, p.requests = false, nil })
	opts.Progress = nil
	res, err := datasets.Fetch(context.Background(), c, taskEvents(t), []int{1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Resumed != 400000 || !slices.Contains(p.log(), "GET "+obj+" 400000-") {
		t.Errorf("resumed %d bytes; requests %v", res[0].Resumed, p.log())
	}
	cacheHolds(t, c, taskEvents(t), 1, readTestdata(t, taskFile))
}

// fetchWithin runs Fetch and fails the test if it has not returned after
// d: a guard against a hang, not a speed assertion.
func fetchWithin(t *testing.T, d time.Duration, c datasets.Cache, ds *datasets.Dataset, parts []int, opts datasets.FetchOptions) ([]datasets.FetchResult, error) {
	t.Helper()
	type out struct {
		res []datasets.FetchResult
		err error
	}
	done := make(chan out, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		res, err := datasets.Fetch(ctx, c, ds, parts, opts)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(d):
		cancel()
		<-done
		t.Fatalf("Fetch still runs after %s: it hangs", d)
		return nil, nil
	}
}

// A server that stalls with the connection open (F13) is given up after
// the stall timeout, on the object's attributes and in the middle of a
// download; the bytes received are kept in the .part file, and the next
// fetch resumes from them.
func TestFetchStall(t *testing.T) {
	p, opts, g := fakeGCS(t)
	obj := "/clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"
	c := datasets.Cache{Dir: t.TempDir()}
	opts.StallTimeout = 200 * time.Millisecond
	host := strings.TrimPrefix(g.Endpoint, "http://")

	p.set(func(p *gcsProxy) { p.stallMeta = true })
	_, err := fetchWithin(t, 20*time.Second, c, taskEvents(t), []int{1}, opts)
	if want := "clusterdata-2011-2/task_events: no answer from " + host + " for 200ms asking for gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz (the server stalls; --stall-timeout sets how long to wait)"; err == nil || err.Error() != want {
		t.Errorf("a stalled metadata request:\n got %v\nwant %s", err, want)
	}
	cacheHolds(t, c, taskEvents(t), 1, nil)

	// every response stalls after 100000 bytes: three tries, 300000 bytes kept
	p.set(func(p *gcsProxy) { p.stallMeta, p.stall[obj] = false, 100000 })
	_, err = fetchWithin(t, 20*time.Second, c, taskEvents(t), []int{1}, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "clusterdata-2011-2/task_events: downloading gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz: no bytes from "+host+" for 200ms, 3 times (the server stalls; --stall-timeout sets how long to wait) (the 300000 bytes received are kept in ") ||
		!strings.HasSuffix(err.Error(), ".part; fetch again to resume)") {
		t.Errorf("a stalled download: %v", err)
	}
	cacheHolds(t, c, taskEvents(t), 1, nil)
	left, _ := filepath.Glob(c.Path(taskEvents(t), 1) + ".g*.part")
	if len(left) != 1 {
		t.Fatalf("downloads left: %v", left)
	}
	if fi, err := os.Stat(left[0]); err != nil || fi.Size() != 300000 {
		t.Fatalf("the partial download: %v %v", fi, err)
	}
	if got := p.log(); !slices.Contains(got, "GET "+obj+" 100000-") || !slices.Contains(got, "GET "+obj+" 200000-") {
		t.Errorf("no resumed range reads after the stalls: %v", got)
	}

	p.set(func(p *gcsProxy) { delete(p.stall, obj); p.requests = nil })
	res, err := fetchWithin(t, 20*time.Second, c, taskEvents(t), []int{1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Resumed != 300000 || !slices.Contains(p.log(), "GET "+obj+" 300000-") {
		t.Errorf("resumed %d bytes; requests %v", res[0].Resumed, p.log())
	}
	cacheHolds(t, c, taskEvents(t), 1, readTestdata(t, taskFile))
}

// A cached part that was truncated or damaged later is not "already in the
// cache" (F14): fetch checks its size and CRC32C against the sidecar and
// the registry and downloads it again.
func TestFetchRepairsDamagedCache(t *testing.T) {
	p, opts, _ := fakeGCS(t)
	c := datasets.Cache{Dir: t.TempDir()}
	var log bytes.Buffer
	opts.Log = &log
	ds := taskEvents(t)
	if _, err := datasets.Fetch(context.Background(), c, ds, []int{1}, opts); err != nil {
		t.Fatal(err)
	}
	path := c.Path(ds, 1)
	data := readTestdata(t, taskFile)
	for _, damage := range []struct {
		name, want string
		content    []byte
	}{
		{"truncated", "the cached copy " + path + " is damaged (500000 bytes instead of 924634); fetching it again", data[:500000]},
		{"a flipped bit", "the cached copy " + path + " is damaged (CRC32C ", append(append([]byte(nil), data[:10]...), append([]byte{data[10] ^ 1}, data[11:]...)...)},
	} {
		if err := os.WriteFile(path, damage.content, 0o644); err != nil {
			t.Fatal(err)
		}
		log.Reset()
		n := len(p.log())
		res, err := datasets.Fetch(context.Background(), c, ds, []int{1}, opts)
		if err != nil || res[0].Cached || len(p.log()) == n {
			t.Errorf("%s: %+v, %v, %d requests", damage.name, res, err, len(p.log())-n)
		}
		if !strings.Contains(log.String(), damage.want) {
			t.Errorf("%s: log\n%s\nwant %s", damage.name, log.String(), damage.want)
		}
		cacheHolds(t, c, ds, 1, data)
	}
	// intact: no request at all
	n := len(p.log())
	if res, err := datasets.Fetch(context.Background(), c, ds, []int{1}, opts); err != nil || !res[0].Cached || len(p.log()) != n {
		t.Errorf("intact: %+v, %v, %d requests", res, err, len(p.log())-n)
	}
}

// Two fetches of one part into one cache at once (F15): the second waits
// for the first, which holds the lock on the .part file, says so, and
// finds the part cached; neither fails.
func TestFetchConcurrent(t *testing.T) {
	p, opts, _ := fakeGCS(t)
	p.slow = 300 * time.Millisecond
	c := datasets.Cache{Dir: t.TempDir()}
	ds := taskEvents(t)
	var wg sync.WaitGroup
	var logs [2]bytes.Buffer
	var results [2][]datasets.FetchResult
	var errs [2]error
	for i := range 2 {
		o := opts
		o.Log = &logs[i]
		wg.Go(func() { results[i], errs[i] = fetchWithin(t, 20*time.Second, c, ds, []int{1}, o) })
		time.Sleep(100 * time.Millisecond) // the first holds the lock
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Errorf("fetch %d: %v", i, errs[i])
		}
	}
	if results[0][0].Cached || !results[1][0].Cached {
		t.Errorf("results %+v and %+v: want the first fetched, the second cached", results[0], results[1])
	}
	if !strings.Contains(logs[1].String(), "waiting: another fetch holds "+c.Path(ds, 1)+".g") ||
		!strings.Contains(logs[1].String(), ": another fetch cached it meanwhile ("+c.Path(ds, 1)+")") {
		t.Errorf("the second fetch's log:\n%s", logs[1].String())
	}
	cacheHolds(t, c, ds, 1, readTestdata(t, taskFile))
}

// A download that does not match the object's checksums is deleted and
// not cached: bytes corrupted in transit, or an object whose content does
// not match its recorded checksums.
func TestFetchCorrupt(t *testing.T) {
	ds, objs, contents := partsDataset(t)
	// part 2 claims the checksums of part 0
	sumsOf := func(b []byte) (string, string) {
		crc := binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
		m := md5.Sum(b)
		return base64.StdEncoding.EncodeToString(crc), base64.StdEncoding.EncodeToString(m[:])
	}
	objs[2].Crc32c, objs[2].Md5Hash = sumsOf(contents[0])
	p, opts, _ := fakeGCS(t, objs...)
	p.flip = "/clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"
	c := datasets.Cache{Dir: t.TempDir()}
	_, err := datasets.Fetch(context.Background(), c, taskEvents(t), []int{1}, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "clusterdata-2011-2/task_events: the download of gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz is corrupt (CRC32C ") ||
		!strings.HasSuffix(err.Error(), "instead of H0zmR2yxGwh0SgOLK/4dRQ==); it was deleted, nothing was cached") {
		t.Errorf("corrupted in transit: %v", err)
	}
	cacheHolds(t, c, taskEvents(t), 1, nil)

	_, err = datasets.Fetch(context.Background(), c, ds, []int{2}, opts)
	crc0, _ := sumsOf(contents[0])
	crc2, _ := sumsOf(contents[2])
	if want := fmt.Sprintf("course/parts: the download of gs://course-bucket/data/p2.csv.gz is corrupt (CRC32C %s instead of %s, MD5 ", crc2, crc0); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a corrupt object: %v, want %s...", err, want)
	}
	cacheHolds(t, c, ds, 2, nil)
	if left, _ := filepath.Glob(filepath.Join(c.Dir, "gcs", "*", "*", "*.part")); len(left) > 0 {
		t.Errorf("downloads left: %v", left)
	}
}

// Missing objects, denied buckets and no network say so.
func TestFetchErrors(t *testing.T) {
	ds, objs, _ := partsDataset(t)
	p, opts, g := fakeGCS(t, objs[0])
	c := datasets.Cache{Dir: t.TempDir()}
	_, err := datasets.Fetch(context.Background(), c, jobEvents(t), []int{1, 2}, opts)
	if err == nil || err.Error() != "clusterdata-2011-2/job_events: gs://clusterdata-2011-2/job_events/part-00002-of-00500.csv.gz does not exist (is the part number right?)" {
		t.Errorf("a missing object: %v", err)
	}
	cacheHolds(t, c, jobEvents(t), 1, readTestdata(t, jobFile)) // the other part is fetched

	p.deny = "course-bucket"
	_, err = datasets.Fetch(context.Background(), c, ds, []int{0}, opts)
	if err == nil || err.Error() != "course/parts: access to gs://course-bucket/data/p0.csv.gz denied (HTTP 403): the bucket is not public; for a private bucket log in with gcloud auth application-default login and add --auth" {
		t.Errorf("denied: %v", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	g.Endpoint = "http://" + addr
	_, err = datasets.Fetch(context.Background(), c, ds, []int{1}, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "course/parts: cannot reach "+addr+" (no network?): ") {
		t.Errorf("no network: %v", err)
	}

	// --auth without credentials: every part failed, none fetched
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "none.json"))
	g.Auth = true
	res, err := datasets.Fetch(context.Background(), c, ds, []int{0, 1}, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "datasets: no Application Default Credentials for --auth (run gcloud auth application-default login): ") {
		t.Errorf("no credentials: %v", err)
	}
	if len(res) != 2 || res[0].Err == nil || res[1].Err == nil || res[0].Cached || res[1].Cached {
		t.Errorf("no credentials: results %+v", res)
	}
}

// Listing the bucket; STORAGE_EMULATOR_HOST is honoured without an
// endpoint.
func TestListObjectsAndEmulatorHost(t *testing.T) {
	_, opts, g := fakeGCS(t)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(g.Endpoint, "http://"))
	g.Endpoint = ""
	list, err := datasets.ListObjects(context.Background(), taskEvents(t), 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0] != (datasets.ObjectInfo{Name: "task_events/part-00001-of-00500.csv.gz", Size: 924634, CRC32C: "01jBPA==", MD5: "H0zmR2yxGwh0SgOLK/4dRQ=="}) {
		t.Errorf("list %+v", list)
	}
	c := datasets.Cache{Dir: t.TempDir()}
	if _, err := datasets.Fetch(context.Background(), c, jobEvents(t), []int{1}, opts); err != nil {
		t.Fatal(err)
	}
	cacheHolds(t, c, jobEvents(t), 1, readTestdata(t, jobFile))
}

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:4443":              "http://localhost:4443/storage/v1/",
		"http://localhost:4443/":             "http://localhost:4443/storage/v1/",
		"localhost:4443":                     "https://localhost:4443/storage/v1/",
		"https://example.com/storage/v1/":    "https://example.com/storage/v1/",
		"https://storage.googleapis.com/foo": "https://storage.googleapis.com/foo",
	} {
		if got := endpointURL(in); got != want {
			t.Errorf("endpointURL(%q) = %q, want %q", in, got, want)
		}
	}
}
