// Package gcs reads the objects of Google Cloud Storage buckets for
// package datasets (datasets.Fetch, datasets.ListObjects), on the GCS JSON
// API with net/http:
//
//   - an object's metadata with objects.get,
//     https://cloud.google.com/storage/docs/json_api/v1/objects/get;
//   - its bytes with the same request and alt=media, from an offset with a
//     Range header, https://cloud.google.com/storage/docs/json_api/v1/objects/get
//     and https://cloud.google.com/storage/docs/downloading-objects (the
//     object as stored: Accept-Encoding: gzip, so that GCS does not
//     transcode a gzip-encoded object,
//     https://cloud.google.com/storage/docs/transcoding);
//   - a bucket's objects with objects.list, page by page,
//     https://cloud.google.com/storage/docs/json_api/v1/objects/list;
//   - the errors of https://cloud.google.com/storage/docs/json_api/v1/status-codes,
//     retried with exponential backoff as
//     https://cloud.google.com/storage/docs/retry-strategy says (the rules
//     of cloud.google.com/go/storage's ShouldRetry).
//
// Requests are anonymous unless Options.Auth, which uses Application
// Default Credentials with golang.org/x/oauth2/google.
//
// It does not use cloud.google.com/go/storage: that client, and even
// google.golang.org/api/storage/v1 and google.golang.org/api/option, link
// gRPC, the protobuf descriptors of googleapis, envoy's control plane and
// OpenTelemetry, some 400 packages whose initialisation (about 6ms) every
// dspalab process paid before main, dspalab --help included, though only
// dspalab datasets downloads. It is a package of its own all the same, so
// that the simulator, the runner and the grader, which read data sets from
// the cache, link no HTTP client or credentials.
package gcs

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/dspalab/dspalab/datasets"
)

// Options say how to reach GCS.
type Options struct {
	// Auth uses Application Default Credentials (gcloud auth
	// application-default login) for private buckets; without it requests
	// are anonymous, which public buckets such as clusterdata-2011-2
	// allow.
	Auth bool
	// Endpoint replaces the GCS endpoint (https://storage.googleapis.com),
	// e.g. http://localhost:4443 for an emulator; "/storage/v1/" is added
	// when the URL has no path. STORAGE_EMULATOR_HOST is honoured too
	// (requests to it are anonymous, as the emulators want).
	Endpoint string
	// RetryDelay bounds the wait before the first retry of a failed
	// request (default 500ms); each further retry may wait twice as long,
	// up to 8 times RetryDelay. The wait is drawn at random up to that
	// bound ("full jitter"), so that many clients do not retry at once.
	RetryDelay time.Duration
	// Attempts is how many times a request is tried (default 4). Fetch
	// resumes an interrupted download as many times.
	Attempts int
}

// readOnly is the OAuth scope of the credentials for --auth: reading
// objects and listing buckets
// (https://cloud.google.com/storage/docs/oauth-scopes).
const readOnly = "https://www.googleapis.com/auth/devstorage.read_only"

// defaultEndpoint is the JSON API's base URL.
const defaultEndpoint = "https://storage.googleapis.com/storage/v1/"

// Open returns a store on GCS: anonymous unless o.Auth, on o.Endpoint if
// set, retrying a failed request o.Attempts times only (so that "no
// network" gives up rather than hangs).
// It is the datasets.FetchOptions.Open of a fetch from GCS.
func (o Options) Open(ctx context.Context) (datasets.Store, error) {
	base, emulator := o.base()
	if _, err := url.Parse(base); err != nil {
		return nil, fmt.Errorf("datasets: the storage endpoint: %w", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	hc := &http.Client{Transport: tr}
	if o.Auth && !emulator {
		ts, err := google.DefaultTokenSource(ctx, readOnly)
		if err != nil {
			return nil, fmt.Errorf("datasets: no Application Default Credentials for --auth (run gcloud auth application-default login): %w", err)
		}
		// oauth2.Transport adds the token to every request it sends,
		// the hops of a redirect included: one off the endpoint would
		// hand the credentials to another host
		hc.Transport = &oauth2.Transport{Source: ts, Base: tr}
		hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if req.URL.Host != via[0].URL.Host {
				return fmt.Errorf("a redirect to %s, off the storage endpoint %s, is not followed with --auth's credentials", req.URL, via[0].URL.Host)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}
	}
	return &store{
		opts:     o,
		base:     base,
		hc:       hc,
		tr:       tr,
		delay:    cmpOr(o.RetryDelay, 500*time.Millisecond),
		attempts: cmpOr(o.Attempts, 4),
	}, nil
}

// base returns the JSON API's base URL, ending in "/", and whether it is
// STORAGE_EMULATOR_HOST's: o.Endpoint, else STORAGE_EMULATOR_HOST (as
// cloud.google.com/go/storage reads it: http unless it names a scheme,
// path /storage/v1/), else GCS's.
func (o Options) base() (string, bool) {
	if o.Endpoint != "" {
		e := endpointURL(o.Endpoint)
		if !strings.HasSuffix(e, "/") {
			e += "/"
		}
		return e, false
	}
	if h := os.Getenv("STORAGE_EMULATOR_HOST"); h != "" {
		u := &url.URL{Scheme: "http", Host: h}
		if strings.Contains(h, "://") {
			p, err := url.Parse(h)
			if err != nil {
				return h, true // Open reports it
			}
			u = p
		}
		u.Path = "/storage/v1/"
		return u.String(), true
	}
	return defaultEndpoint, false
}

// endpointURL turns a host URL into the JSON API endpoint
// ("http://localhost:4443" -> "http://localhost:4443/storage/v1/").
func endpointURL(e string) string {
	if !strings.Contains(e, "://") {
		e = "https://" + e
	}
	u, err := url.Parse(e)
	if err != nil || u.Path != "" && u.Path != "/" {
		return e
	}
	u.Path = "/storage/v1/"
	return u.String()
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// store is a datasets.Store on the JSON API at base.
type store struct {
	opts     Options
	base     string // ends in "/"
	hc       *http.Client
	tr       *http.Transport
	delay    time.Duration
	attempts int
}

// What a request was about, for the meaning of a 404.
const (
	opObject = "object"
	opList   = "list"
)

// apiError is a request that GCS answered with an error status: its code
// and the message of the JSON error body
// (https://cloud.google.com/storage/docs/json_api/v1/status-codes), or the
// body's text when it is not JSON (fake-gcs-server's downloads).
type apiError struct {
	Code    int
	Message string
	op      string // opObject or opList
}

func (e *apiError) Error() string {
	return fmt.Sprintf("gcs: HTTP %d: %s", e.Code, e.Message)
}

// noBucket reports whether a 404 says that the bucket does not exist
// (GCS: "The specified bucket does not exist."), not the object ("No such
// object: BUCKET/OBJECT").
func (e *apiError) noBucket() bool {
	return e.Code == http.StatusNotFound && (e.op == opList || strings.Contains(strings.ToLower(e.Message), "bucket does not exist"))
}

// newAPIError reads the error of a response with an error status.
func newAPIError(resp *http.Response, op string) *apiError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(b, &body) == nil {
		msg = body.Error.Message
	}
	if msg == "" {
		msg, _, _ = strings.Cut(strings.TrimSpace(string(b)), "\n")
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &apiError{Code: resp.StatusCode, Message: msg, op: op}
}

// send makes one GET request of u and returns its response if its status
// is 2xx or also, the status pass; any other is an *apiError.
func (s *store) send(ctx context.Context, u string, h http.Header, op string, pass int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "dspalab")
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 || resp.StatusCode == pass {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, newAPIError(resp, op)
}

// retry calls try up to s.attempts times while it fails with a retryable
// error, waiting between tries as Options.RetryDelay says; it gives up at
// once when ctx ends.
func (s *store) retry(ctx context.Context, try func() error) error {
	for n := 1; ; n++ {
		err := try()
		if err == nil || n >= s.attempts || !retryable(err) || errors.Is(err, ctx.Err()) {
			return err
		}
		t := time.NewTimer(pause(s.delay, n))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (waiting to try again after: %w)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// pauseBound is the longest wait after the n-th failed try: delay, twice
// that, and so on, up to 8 times delay (gax.Backoff{Initial: delay, Max:
// 8*delay, Multiplier: 2}, as this package gave the storage client).
func pauseBound(delay time.Duration, n int) time.Duration {
	return delay << min(n-1, 3)
}

// pause is the wait after the n-th failed try: at random in (0,
// pauseBound], as gax.Backoff draws it.
func pause(delay time.Duration, n int) time.Duration {
	return 1 + time.Duration(rand.Int64N(int64(pauseBound(delay, n))))
}

// retryable reports whether a failed request may succeed if tried again,
// by the rules of cloud.google.com/go/storage's ShouldRetry
// (https://cloud.google.com/storage/docs/retry-strategy): 408, 429 and 5xx;
// connections refused, reset or closed, broken pipes, EOFs of the
// transport; temporary network errors (timeouts among them); a body cut
// short.
func retryable(err error) bool {
	for err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
			return true
		}
		switch e := err.(type) {
		case *apiError:
			return e.Code == http.StatusRequestTimeout || e.Code == http.StatusTooManyRequests || e.Code >= 500 && e.Code < 600
		case *net.OpError, *url.Error:
			for _, s := range []string{"connection refused", "connection reset", "broken pipe", "client connection lost", "server closed idle connection"} {
				if strings.Contains(e.Error(), s) {
					return true
				}
			}
			if errors.Is(err, io.EOF) {
				return true
			}
		case *net.DNSError:
			if e.IsTemporary {
				return true
			}
		case interface{ Temporary() bool }:
			if e.Temporary() {
				return true
			}
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// maxJSON bounds the answer to a metadata or list request: a page of
// objects.list holds at most 1000 objects of a few hundred bytes each
// (more with custom metadata), so an answer larger than this is no
// resource of the API but a server that sends without end, which would
// otherwise be read into memory until the process runs out of it.
const maxJSON = 32 << 20

// getJSON reads the JSON resource at u into v, retrying.
func (s *store) getJSON(ctx context.Context, u, op string, v any) error {
	return s.retry(ctx, func() error {
		resp, err := s.send(ctx, u, nil, op, 0)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxJSON+1))
		if err != nil {
			return err // cut short: retried
		}
		if len(b) > maxJSON {
			return fmt.Errorf("gcs: the answer to %s is more than %d MiB, not a resource of the JSON API", u, maxJSON>>20)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("gcs: the answer to %s: %w", u, err)
		}
		return nil
	})
}

// objectURL is the JSON API's URL of an object.
func (s *store) objectURL(bucket, object string) string {
	return s.base + "b/" + url.PathEscape(bucket) + "/o/" + url.PathEscape(object)
}

// object is what this package reads of an object resource
// (https://cloud.google.com/storage/docs/json_api/v1/objects#resource):
// size and generation are decimal strings, crc32c the base64 of the
// big-endian CRC32C, md5Hash the base64 of the MD5 (none for composite
// objects).
type object struct {
	Name       string `json:"name"`
	Size       int64  `json:"size,string"`
	Generation int64  `json:"generation,string"`
	CRC32C     string `json:"crc32c"`
	MD5Hash    string `json:"md5Hash"`
}

func (o object) attrs() (datasets.ObjectAttrs, error) {
	a := datasets.ObjectAttrs{Name: o.Name, Size: o.Size, Generation: o.Generation}
	if o.Size < 0 {
		return a, fmt.Errorf("gcs: the object %s has a negative size %d", o.Name, o.Size)
	}
	if o.Generation < 0 {
		return a, fmt.Errorf("gcs: the object %s has a negative generation %d", o.Name, o.Generation)
	}
	crc, err := base64.StdEncoding.DecodeString(o.CRC32C)
	if err != nil || len(crc) != 4 {
		return a, fmt.Errorf("gcs: the object %s has a malformed crc32c %q", o.Name, o.CRC32C)
	}
	a.CRC32C = binary.BigEndian.Uint32(crc)
	if o.MD5Hash != "" {
		if a.MD5, err = base64.StdEncoding.DecodeString(o.MD5Hash); err != nil {
			return a, fmt.Errorf("gcs: the object %s has a malformed md5Hash %q", o.Name, o.MD5Hash)
		}
	}
	return a, nil
}

func (s *store) Attrs(ctx context.Context, bucket, name string) (datasets.ObjectAttrs, error) {
	var o object
	if err := s.getJSON(ctx, s.objectURL(bucket, name), opObject, &o); err != nil {
		return datasets.ObjectAttrs{}, err
	}
	return o.attrs()
}

// NewRangeReader reads the object as it is stored (Accept-Encoding: gzip:
// no transcoding of a gzip-encoded object) from offset, without checking a
// checksum: Fetch checks the whole download itself. A server that ignores
// the range and sends the whole object (200) has its first offset bytes
// skipped; a 416 for an offset at the object's end is the empty rest.
func (s *store) NewRangeReader(ctx context.Context, bucket, name string, generation, offset int64) (io.ReadCloser, error) {
	q := url.Values{"alt": {"media"}}
	if generation > 0 {
		q.Set("generation", strconv.FormatInt(generation, 10))
	}
	u := s.objectURL(bucket, name) + "?" + q.Encode()
	h := http.Header{"Accept-Encoding": {"gzip"}}
	if offset > 0 {
		h.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	var body io.ReadCloser
	err := s.retry(ctx, func() error {
		resp, err := s.send(ctx, u, h, opObject, http.StatusRequestedRangeNotSatisfiable)
		if err != nil {
			return err
		}
		cr := resp.Header.Get("Content-Range")
		switch resp.StatusCode {
		case http.StatusRequestedRangeNotSatisfiable:
			resp.Body.Close()
			if size, ok := strings.CutPrefix(cr, "bytes */"); ok && size == strconv.FormatInt(offset, 10) {
				body = http.NoBody
				return nil
			}
			return &apiError{Code: resp.StatusCode, Message: fmt.Sprintf("no bytes from %d (Content-Range %q)", offset, cr), op: opObject}
		case http.StatusPartialContent:
			if !strings.HasPrefix(cr, fmt.Sprintf("bytes %d-", offset)) {
				resp.Body.Close()
				return fmt.Errorf("gcs: asked for %s from byte %d, got Content-Range %q", name, offset, cr)
			}
		default: // the whole object
			if _, err := io.CopyN(io.Discard, resp.Body, offset); err != nil {
				resp.Body.Close()
				return err
			}
		}
		body = resp.Body
		return nil
	})
	return body, err
}

// List returns the objects whose names begin with prefix, in the order
// GCS lists them (by name), up to limit (0: all), following nextPageToken
// from page to page. A token given twice is an error: a server that
// repeats itself would have the list grow until memory runs out.
func (s *store) List(ctx context.Context, bucket, prefix string, limit int) ([]datasets.ObjectAttrs, error) {
	var out []datasets.ObjectAttrs
	token := ""
	seen := map[string]bool{}
	for {
		q := url.Values{}
		if prefix != "" {
			q.Set("prefix", prefix)
		}
		if token != "" {
			q.Set("pageToken", token)
		}
		if limit > 0 {
			q.Set("maxResults", strconv.Itoa(min(limit-len(out), 1000))) // GCS's largest page
		}
		var page struct {
			Items         []object `json:"items"`
			NextPageToken string   `json:"nextPageToken"`
		}
		u := s.base + "b/" + url.PathEscape(bucket) + "/o"
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		if err := s.getJSON(ctx, u, opList, &page); err != nil {
			return out, err
		}
		for _, o := range page.Items {
			a, err := o.attrs()
			if err != nil {
				return out, err
			}
			out = append(out, a)
			if limit > 0 && len(out) == limit {
				return out, nil
			}
		}
		if page.NextPageToken == "" {
			return out, nil
		}
		if seen[page.NextPageToken] {
			return out, fmt.Errorf("gcs: the listing of gs://%s/%s gave the page token %q again after %d objects: the server repeats its pages", bucket, prefix, page.NextPageToken, len(out))
		}
		seen[page.NextPageToken] = true
		token = page.NextPageToken
	}
}

func (s *store) Retryable(err error) bool { return retryable(err) }

// Explain says what a missing object or bucket, or a refused request,
// means for a person.
func (s *store) Explain(err error, uri string) error {
	var e *apiError
	if !errors.As(err, &e) {
		return err
	}
	switch {
	case e.noBucket():
		return fmt.Errorf("the bucket of %s does not exist", uri)
	case e.Code == http.StatusNotFound:
		return fmt.Errorf("%s does not exist (is the part number right?)", uri)
	case e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden:
		if s.opts.Auth {
			return fmt.Errorf("access to %s denied (HTTP %d): your credentials may not read this bucket", uri, e.Code)
		}
		return fmt.Errorf("access to %s denied (HTTP %d): the bucket is not public; for a private bucket log in with gcloud auth application-default login and add --auth", uri, e.Code)
	}
	return err
}

// Host is the storage host the requests go to, for messages.
func (s *store) Host() string {
	if u, err := url.Parse(s.base); err == nil && u.Host != "" {
		return u.Host
	}
	return s.base
}

func (s *store) Close() error {
	s.tr.CloseIdleConnections()
	return nil
}
