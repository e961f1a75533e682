package gcs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dspalab/dspalab/datasets"
)

// The object resource of taskFile as GCS gives it.
const taskObject = `{"kind": "storage#object", "name": "task_events/part-00001-of-00500.csv.gz", "bucket": "clusterdata-2011-2",
	"size": "924634", "generation": "1700000000000001", "crc32c": "01jBPA==", "md5Hash": "H0zmR2yxGwh0SgOLK/4dRQ==",
	"contentType": "application/octet-stream", "updated": "2013-11-14T22:35:16.000Z"}`

var taskAttrs = datasets.ObjectAttrs{Name: "task_events/part-00001-of-00500.csv.gz", Size: 924634, Generation: 1700000000000001,
	CRC32C: 0xd358c13c, MD5: []byte{0x1f, 0x4c, 0xe6, 0x47, 0x6c, 0xb1, 0x1b, 0x08, 0x74, 0x4a, 0x03, 0x8b, 0x2b, 0xfe, 0x1d, 0x45}}

// scripted is a server that answers the n-th request with the n-th of
// its answers (the last one again when they run out) and records the
// requests.
type scripted struct {
	mu       sync.Mutex
	answers  []func(w http.ResponseWriter, r *http.Request)
	requests []*http.Request
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	a := s.answers[min(len(s.requests), len(s.answers))-1]
	s.mu.Unlock()
	a(w, r)
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func status(code int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

func gcsError(code int, msg string) func(w http.ResponseWriter, r *http.Request) {
	return status(code, fmt.Sprintf(`{"error": {"code": %d, "message": %q, "errors": [{"message": %q, "domain": "global", "reason": "x"}]}}`, code, msg, msg))
}

// reset drops the connection without an answer.
func reset(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }

// openOn opens a store on the server at u.
func openOn(t *testing.T, u string, attempts int) *store {
	t.Helper()
	st, err := Options{Endpoint: u, RetryDelay: time.Millisecond, Attempts: attempts}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*store)
}

// A request is tried again on 408, 429, 5xx and dropped connections, up to
// Attempts tries in all, and not on other errors.
func TestRetries(t *testing.T) {
	ok := status(200, taskObject)
	for _, c := range []struct {
		name     string
		answers  []func(w http.ResponseWriter, r *http.Request)
		attempts int
		requests int
		code     int // of the error; 0: none, -1: not an HTTP status
	}{
		{"503 twice, then the object", []func(http.ResponseWriter, *http.Request){gcsError(503, "Backend Error"), gcsError(503, "Backend Error"), ok}, 3, 3, 0},
		{"503 until the attempts run out", []func(http.ResponseWriter, *http.Request){gcsError(503, "Backend Error")}, 3, 3, 503},
		{"503 with one attempt", []func(http.ResponseWriter, *http.Request){gcsError(503, "Backend Error")}, 1, 1, 503},
		{"429", []func(http.ResponseWriter, *http.Request){gcsError(429, "rate"), ok}, 4, 2, 0},
		{"408", []func(http.ResponseWriter, *http.Request){gcsError(408, "timeout"), ok}, 4, 2, 0},
		{"500, 502, 504", []func(http.ResponseWriter, *http.Request){gcsError(500, "x"), gcsError(502, "x"), gcsError(504, "x"), ok}, 4, 4, 0},
		{"a dropped connection", []func(http.ResponseWriter, *http.Request){reset, reset, ok}, 4, 3, 0},
		{"dropped connections only", []func(http.ResponseWriter, *http.Request){reset}, 2, 2, -1},
		{"404", []func(http.ResponseWriter, *http.Request){gcsError(404, "No such object: clusterdata-2011-2/x"), ok}, 4, 1, 404},
		{"403", []func(http.ResponseWriter, *http.Request){gcsError(403, "denied"), ok}, 4, 1, 403},
		{"400", []func(http.ResponseWriter, *http.Request){gcsError(400, "bad"), ok}, 4, 1, 400},
		{"a body that is not JSON", []func(http.ResponseWriter, *http.Request){status(200, "{"), ok}, 4, 1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := &scripted{answers: c.answers}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			st := openOn(t, ts.URL, c.attempts)
			a, err := st.Attrs(context.Background(), "clusterdata-2011-2", "task_events/part-00001-of-00500.csv.gz")
			if srv.count() != c.requests {
				t.Errorf("%d requests, want %d", srv.count(), c.requests)
			}
			var ae *apiError
			switch {
			case c.code == 0 && (err != nil || !equalAttrs(a, taskAttrs)):
				t.Errorf("got %+v, %v; want %+v", a, err, taskAttrs)
			case c.code > 0 && (!errors.As(err, &ae) || ae.Code != c.code):
				t.Errorf("err = %v, want HTTP %d", err, c.code)
			case c.code < 0 && (err == nil || errors.As(err, &ae)):
				t.Errorf("err = %v, want one of the connection", err)
			}
			if c.code == 503 && !st.Retryable(err) {
				t.Errorf("the last 503 is not retryable for Fetch: %v", err)
			}
		})
	}
	// downloads and listings are retried alike
	srv := &scripted{answers: []func(http.ResponseWriter, *http.Request){gcsError(503, "x"), reset, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 3-5/6")
		w.WriteHeader(206)
		io.WriteString(w, "def")
	}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	rd, err := openOn(t, ts.URL, 3).NewRangeReader(context.Background(), "b", "o", 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(rd); err != nil || string(b) != "def" || srv.count() != 3 {
		t.Errorf("download: %q, %v after %d requests", b, err, srv.count())
	}
	srv.requests, srv.answers = nil, []func(http.ResponseWriter, *http.Request){gcsError(500, "x"), status(200, `{"items": [`+taskObject+`]}`)}
	if l, err := openOn(t, ts.URL, 3).List(context.Background(), "b", "", 0); err != nil || len(l) != 1 || srv.count() != 2 {
		t.Errorf("list: %+v, %v after %d requests", l, err, srv.count())
	}
}

func equalAttrs(a, b datasets.ObjectAttrs) bool {
	return a.Name == b.Name && a.Size == b.Size && a.Generation == b.Generation && a.CRC32C == b.CRC32C && bytes.Equal(a.MD5, b.MD5)
}

// The wait before a retry ends with the context: one request, and the
// context's error with the request's.
func TestRetryHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &scripted{answers: []func(http.ResponseWriter, *http.Request){gcsError(503, "Backend Error")}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	st, err := Options{Endpoint: ts.URL, RetryDelay: time.Hour, Attempts: 4}.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// the context ends once the 503 is read, while the store waits (up
	// to an hour) to try again
	s := st.(*store)
	s.hc.Transport = onClose{s.hc.Transport, func() { go func() { time.Sleep(20 * time.Millisecond); cancel() }() }}
	done := make(chan error, 1)
	go func() {
		_, err := st.Attrs(ctx, "b", "o")
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second): // a guard against a hang
		t.Fatal("Attrs still waits after its context ended")
	}
	var ae *apiError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &ae) || ae.Code != 503 || srv.count() != 1 {
		t.Errorf("err = %v after %d requests; want context canceled, with the 503, after 1", err, srv.count())
	}
}

// onClose calls f when a response's body is closed.
type onClose struct {
	rt http.RoundTripper
	f  func()
}

func (o onClose) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := o.rt.RoundTrip(r)
	if err == nil {
		resp.Body = closer{resp.Body, o.f}
	}
	return resp, err
}

type closer struct {
	io.ReadCloser
	f func()
}

func (c closer) Close() error { c.f(); return c.ReadCloser.Close() }

// The waits double from RetryDelay up to 8 times it, each drawn up to
// its bound.
func TestPause(t *testing.T) {
	d := 100 * time.Millisecond
	var bounds []time.Duration
	for n := 1; n <= 6; n++ {
		bounds = append(bounds, pauseBound(d, n))
		for range 100 {
			if p := pause(d, n); p < 1 || p > pauseBound(d, n) {
				t.Fatalf("pause after try %d: %v, beyond (0, %v]", n, p, pauseBound(d, n))
			}
		}
	}
	if want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 800 * time.Millisecond, 800 * time.Millisecond}; !slices.Equal(bounds, want) {
		t.Errorf("bounds %v, want %v", bounds, want)
	}
}

// retryable follows cloud.google.com/go/storage's ShouldRetry.
func TestRetryable(t *testing.T) {
	urlErr := func(err error) error { return &url.Error{Op: "Get", URL: "https://storage.googleapis.com/x", Err: err} }
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{io.ErrUnexpectedEOF, true},
		{fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{net.ErrClosed, true},
		{&apiError{Code: 408}, true},
		{&apiError{Code: 429}, true},
		{&apiError{Code: 500}, true},
		{&apiError{Code: 503}, true},
		{&apiError{Code: 599}, true},
		{fmt.Errorf("x: %w", &apiError{Code: 502}), true},
		{&apiError{Code: 400}, false},
		{&apiError{Code: 401}, false},
		{&apiError{Code: 403}, false},
		{&apiError{Code: 404}, false},
		{&apiError{Code: 416}, false},
		{urlErr(errors.New("read tcp: connection reset by peer")), true},
		{urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true},
		{&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{urlErr(errors.New("http: server closed idle connection")), true},
		{urlErr(io.EOF), true},
		{io.EOF, false},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true}, // a timeout
		{&net.DNSError{Err: "server misbehaving", Name: "storage.googleapis.com", IsTemporary: true}, true},
		{&net.DNSError{Err: "no such host", Name: "storage.googleapis.com", IsNotFound: true}, false},
		{context.Canceled, false},
		{urlErr(context.Canceled), false},
		{errors.New("gcs: the answer: invalid character"), false},
	} {
		if got := retryable(c.err); got != c.want {
			t.Errorf("retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// A 404 means a missing bucket when GCS says so, or for a listing; a
// missing object otherwise. 401 and 403 are access denied.
func TestExplain(t *testing.T) {
	const uri = "gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"
	object := uri + " does not exist (is the part number right?)"
	bucket := "the bucket of " + uri + " does not exist"
	anonymous := func(code int) string {
		return fmt.Sprintf("access to %s denied (HTTP %d): the bucket is not public; for a private bucket log in with gcloud auth application-default login and add --auth", uri, code)
	}
	for _, c := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		call   string // attrs, read, list
		want   string
	}{
		{"objects.get of a missing object", gcsError(404, "No such object: clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"), "attrs", object},
		{"objects.get in a missing bucket", gcsError(404, "The specified bucket does not exist."), "attrs", bucket},
		{"a download of a missing object", gcsError(404, "No such object: clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz"), "read", object},
		{"a download in a missing bucket", gcsError(404, "The specified bucket does not exist."), "read", bucket},
		{"fake-gcs-server's download 404", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Not Found", 404) }, "read", object},
		{"objects.list of a missing bucket", gcsError(404, "The specified bucket does not exist."), "list", bucket},
		{"objects.list 404 without a message", status(404, ""), "list", bucket},
		{"401", gcsError(401, "Anonymous caller does not have storage.objects.get access"), "attrs", anonymous(401)},
		{"403", gcsError(403, "Anonymous caller does not have storage.objects.get access"), "read", anonymous(403)},
		{"403 of a listing", gcsError(403, "Anonymous caller does not have storage.objects.list access"), "list", anonymous(403)},
		{"500", gcsError(500, "We encountered an internal error. Please try again."), "attrs", "gcs: HTTP 500: We encountered an internal error. Please try again."},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(&scripted{answers: []func(http.ResponseWriter, *http.Request){c.answer}})
			defer ts.Close()
			st := openOn(t, ts.URL, 1)
			var err error
			switch c.call {
			case "attrs":
				_, err = st.Attrs(context.Background(), "clusterdata-2011-2", "task_events/part-00001-of-00500.csv.gz")
			case "read":
				_, err = st.NewRangeReader(context.Background(), "clusterdata-2011-2", "task_events/part-00001-of-00500.csv.gz", 0, 0)
			case "list":
				_, err = st.List(context.Background(), "clusterdata-2011-2", "task_events/", 0)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if got := st.Explain(err, uri).Error(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}

	// fake-gcs-server: a missing object, a missing bucket
	_, _, g := fakeGCS(t)
	s, err := g.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Attrs(context.Background(), "clusterdata-2011-2", "task_events/part-00002-of-00500.csv.gz")
	if err == nil || s.Explain(err, "gs://x/y").Error() != "gs://x/y does not exist (is the part number right?)" {
		t.Errorf("fake-gcs-server, a missing object: %v", err)
	}
	_, err = s.List(context.Background(), "no-such-bucket", "", 0)
	if err == nil || s.Explain(err, "gs://no-such-bucket/").Error() != "the bucket of gs://no-such-bucket/ does not exist" {
		t.Errorf("fake-gcs-server, a missing bucket: %v", err)
	}
}

// A range read from an offset returns exactly the object's bytes from
// there, of the generation asked for; from its end, none.
func TestRangeReader(t *testing.T) {
	p, _, g := fakeGCS(t)
	s, err := g.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const bucket, name = "clusterdata-2011-2", "task_events/part-00001-of-00500.csv.gz"
	data := readTestdata(t, taskFile)
	a, err := s.Attrs(context.Background(), bucket, name)
	if err != nil {
		t.Fatal(err)
	}
	if a.Size != int64(len(data)) || a.Generation == 0 {
		t.Fatalf("attrs %+v", a)
	}
	for _, off := range []int64{0, 1, 300000, a.Size - 1, a.Size} {
		rd, err := s.NewRangeReader(context.Background(), bucket, name, a.Generation, off)
		if err != nil {
			t.Fatalf("from %d: %v", off, err)
		}
		got, err := io.ReadAll(rd)
		rd.Close()
		if err != nil || !bytes.Equal(got, data[off:]) {
			t.Errorf("from %d: %d bytes (%v), want the last %d", off, len(got), err, len(data[off:]))
		}
	}
	if l := p.log(); !slices.Contains(l, "GET /"+bucket+"/"+name+" 300000-") || !slices.Contains(l, "GET /"+bucket+"/"+name) {
		t.Errorf("requests %v", l)
	}
	_, err = s.NewRangeReader(context.Background(), bucket, name, a.Generation+1, 0)
	if err == nil || s.Explain(err, "gs://x/y").Error() != "gs://x/y does not exist (is the part number right?)" {
		t.Errorf("a generation that does not exist: %v", err)
	}

	// a server that ignores the range; one that answers another range
	srv := &scripted{answers: []func(http.ResponseWriter, *http.Request){
		status(200, "abcdef"),
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-5/6")
			w.WriteHeader(206)
			io.WriteString(w, "abcdef")
		},
	}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	st := openOn(t, ts.URL, 1)
	rd, err := st.NewRangeReader(context.Background(), "b", "o", 7, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(rd); err != nil || string(got) != "cdef" {
		t.Errorf("a whole object for a range: %q, %v", got, err)
	}
	r := srv.requests[0]
	if r.Header.Get("Range") != "bytes=2-" || r.Header.Get("Accept-Encoding") != "gzip" || r.URL.Query().Get("generation") != "7" || r.URL.Query().Get("alt") != "media" {
		t.Errorf("the request: %s %v", r.URL, r.Header)
	}
	if _, err := st.NewRangeReader(context.Background(), "b", "o", 7, 2); err == nil || err.Error() != `gcs: asked for o from byte 2, got Content-Range "bytes 0-5/6"` {
		t.Errorf("another range: %v", err)
	}
}

// List follows nextPageToken across pages, in the order GCS gives, and
// asks for no more than it wants.
func TestListPaging(t *testing.T) {
	var names []string
	for i := range 5 {
		names = append(names, fmt.Sprintf("task_events/part-%05d-of-00500.csv.gz", i))
	}
	var mu sync.Mutex
	var queries []string
	// pages of two, whatever maxResults says (GCS may return fewer)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query().Encode())
		mu.Unlock()
		if r.URL.Path != "/storage/v1/b/clusterdata-2011-2/o" {
			http.Error(w, r.URL.Path, 400)
			return
		}
		from, _ := strconv.Atoi(r.URL.Query().Get("pageToken"))
		var page struct {
			Items         []map[string]string `json:"items,omitempty"`
			NextPageToken string              `json:"nextPageToken,omitempty"`
		}
		for i := from; i < min(from+2, len(names)); i++ {
			page.Items = append(page.Items, map[string]string{"name": names[i], "size": strconv.Itoa(1000 + i), "generation": "17", "crc32c": "AAAAAQ=="})
		}
		if from+2 < len(names) {
			page.NextPageToken = strconv.Itoa(from + 2)
		}
		json.NewEncoder(w).Encode(page)
	}))
	defer ts.Close()
	st := openOn(t, ts.URL, 1)
	for _, c := range []struct {
		limit   int
		want    []string
		queries []string
	}{
		{0, names, []string{"prefix=task_events%2F", "pageToken=2&prefix=task_events%2F", "pageToken=4&prefix=task_events%2F"}},
		{3, names[:3], []string{"maxResults=3&prefix=task_events%2F", "maxResults=1&pageToken=2&prefix=task_events%2F"}},
		{2, names[:2], []string{"maxResults=2&prefix=task_events%2F"}},
	} {
		queries = nil
		list, err := st.List(context.Background(), "clusterdata-2011-2", "task_events/", c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, a := range list {
			got = append(got, a.Name)
			if a.Size != int64(1000+i) || a.Generation != 17 || a.CRC32C != 1 || a.MD5 != nil {
				t.Errorf("limit %d: %+v", c.limit, a)
			}
		}
		if !slices.Equal(got, c.want) || !slices.Equal(queries, c.queries) {
			t.Errorf("limit %d: %v after %q\nwant %v after %q", c.limit, got, queries, c.want, c.queries)
		}
	}

	// fake-gcs-server pages with maxResults
	_, objs, _ := partsDataset(t)
	_, _, g := fakeGCS(t, objs...)
	s, err := g.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for limit, want := range map[int][]string{0: {"data/p0.csv.gz", "data/p1.csv.gz", "data/p2.csv.gz"}, 2: {"data/p0.csv.gz", "data/p1.csv.gz"}} {
		list, err := s.List(context.Background(), "course-bucket", "data/", limit)
		var got []string
		for _, a := range list {
			got = append(got, a.Name)
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("fake-gcs-server, limit %d: %v, %v; want %v", limit, got, err, want)
		}
	}
}

// --auth: the requests carry the token of the Application Default
// Credentials, asked for with the read-only scope; requests to
// STORAGE_EMULATOR_HOST carry none.
func TestAuth(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var scopes, auths, awayAuths []string
	// another host, which a redirect must not give the token to
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		awayAuths = append(awayAuths, r.Header.Get("Authorization"))
		io.WriteString(w, taskObject)
	}))
	defer away.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/token" { // the service account's token_uri
			r.ParseForm()
			parts := strings.Split(r.Form.Get("assertion"), ".")
			var claims struct{ Scope string }
			if len(parts) == 3 {
				b, _ := base64.RawURLEncoding.DecodeString(parts[1])
				json.Unmarshal(b, &claims)
			}
			scopes = append(scopes, claims.Scope)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token": "token-1", "token_type": "Bearer", "expires_in": 3600}`)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/o/away") {
			http.Redirect(w, r, away.URL+r.URL.Path, http.StatusFound)
			return
		}
		auths = append(auths, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer token-1" {
			gcsError(401, "Anonymous caller does not have storage.objects.get access")(w, r)
			return
		}
		io.WriteString(w, taskObject)
	}))
	defer ts.Close()
	creds, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "course", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "reader@course.iam.gserviceaccount.com", "token_uri": ts.URL + "/token",
	})
	file := filepath.Join(t.TempDir(), "credentials.json")
	if err := os.WriteFile(file, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", file)
	t.Setenv("STORAGE_EMULATOR_HOST", "")

	attrs := func(o Options) error {
		st, err := o.Open(context.Background())
		if err != nil {
			return err
		}
		defer st.Close()
		_, err = st.Attrs(context.Background(), "b", "o")
		if err != nil {
			return st.Explain(err, "gs://b/o")
		}
		return nil
	}
	if err := attrs(Options{Endpoint: ts.URL, Auth: true, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	if err := attrs(Options{Endpoint: ts.URL, Attempts: 1}); err == nil || !strings.HasPrefix(err.Error(), "access to gs://b/o denied (HTTP 401): the bucket is not public;") {
		t.Errorf("anonymous: %v", err)
	}
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(ts.URL, "http://"))
	if err := attrs(Options{Auth: true, Attempts: 1}); err == nil {
		t.Error("the emulator got a token")
	}
	if !slices.Equal(scopes, []string{readOnly}) || !slices.Equal(auths, []string{"Bearer token-1", "", ""}) {
		t.Errorf("scopes asked for %q; authorizations sent %q", scopes, auths)
	}

	// a redirect off the endpoint is not followed with the token
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	st, err := Options{Endpoint: ts.URL, Auth: true, Attempts: 1}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.Attrs(context.Background(), "b", "away")
	if want := "a redirect to " + away.URL + "/storage/v1/b/b/o/away, off the storage endpoint " + strings.TrimPrefix(ts.URL, "http://") + ", is not followed with --auth's credentials"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("redirected away: %v; want %s", err, want)
	}
	if len(awayAuths) > 0 {
		t.Errorf("the other host was sent %q", awayAuths)
	}
}
