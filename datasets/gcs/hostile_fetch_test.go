package gcs

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dspalab/dspalab/datasets"
)

// hostileServer serves one object, content, whose metadata it gives as
// GCS does, and whose downloads media writes.
func hostileServer(t *testing.T, content []byte, media func(w http.ResponseWriter, r *http.Request)) datasets.FetchOptions {
	t.Helper()
	crc := binary.BigEndian.AppendUint32(nil, crc32.Checksum(content, crc32.MakeTable(crc32.Castagnoli)))
	sum := md5.Sum(content)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("alt") == "media" {
			media(w, r)
			return
		}
		fmt.Fprintf(w, `{"name": %q, "size": "%d", "generation": "3", "crc32c": %q, "md5Hash": %q}`, strings.TrimPrefix(r.URL.Path, "/storage/v1/b/course-bucket/o/"),
			len(content), base64.StdEncoding.EncodeToString(crc), base64.StdEncoding.EncodeToString(sum[:]))
	}))
	t.Cleanup(ts.Close)
	g := Options{Endpoint: ts.URL, RetryDelay: time.Millisecond, Attempts: 2}
	return datasets.FetchOptions{Open: g.Open, RetryDelay: g.RetryDelay, Attempts: g.Attempts}
}

// A server that sends the object and then goes on sending (gigabytes, or
// for ever) has only the object's bytes read: the download neither fills
// the disk nor fails.
func TestFetchBodyLongerThanObject(t *testing.T) {
	ds, _, contents := partsDataset(t)
	content := contents[1]
	var sent atomic.Int64
	opts := hostileServer(t, content, func(w http.ResponseWriter, r *http.Request) {
		w.Write(content)
		junk := bytes.Repeat([]byte("junk"), 16<<10)
		for sent.Load() < 256<<20 {
			if _, err := w.Write(junk); err != nil {
				return
			}
			sent.Add(int64(len(junk)))
		}
	})
	c := datasets.Cache{Dir: t.TempDir()}
	if _, err := datasets.Fetch(context.Background(), c, ds, []int{0}, opts); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.Path(ds, 0))
	if err != nil || !bytes.Equal(got, content) {
		t.Errorf("cached %d bytes, %v; want the object's %d", len(got), err, len(content))
	}
	if sent.Load() >= 256<<20 {
		t.Errorf("the client read all %d bytes of junk", sent.Load())
	}
}

// A download that the server always cuts short, or answers with 429,
// fails with an error that names the object and says what was expected;
// the bytes received are kept, and the cache does not hold the part.
func TestFetchErrorsNameTheObject(t *testing.T) {
	ds, _, contents := partsDataset(t)
	content := contents[1]
	half := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(content)))
		w.Write(content[:len(content)/2])
	}
	storm := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error": {"code": 429, "message": "rate limited"}}`))
	}
	for name, c := range map[string]struct {
		media func(http.ResponseWriter, *http.Request)
		want  string
	}{
		"cut short": {half, fmt.Sprintf("course/parts: downloading gs://course-bucket/data/p0.csv.gz: the server ended the download after %d of the object's %d bytes: unexpected EOF (the %[1]d bytes received are kept in ", len(content)/2, len(content))},
		"429":       {storm, "course/parts: downloading gs://course-bucket/data/p0.csv.gz: gcs: HTTP 429: rate limited"},
	} {
		opts := hostileServer(t, content, c.media)
		cache := datasets.Cache{Dir: t.TempDir()}
		_, err := datasets.Fetch(context.Background(), cache, ds, []int{0}, opts)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s...", name, err, c.want)
		}
		if cache.Has(ds, 0) {
			t.Errorf("%s: the part is in the cache", name)
		}
	}
}
