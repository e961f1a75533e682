package gcs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An answer that never ends (a JSON string of gigabytes) is given up
// after maxJSON bytes with an error naming the URL, instead of being read
// into memory until the process runs out of it.
func TestJSONTooLarge(t *testing.T) {
	var sent int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"items": [{"name": "`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for sent < 4*maxJSON {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			sent += int64(len(chunk))
		}
	}))
	defer ts.Close()
	st := openOn(t, ts.URL, 3)
	for what, call := range map[string]func() error{
		"attrs": func() error { _, err := st.Attrs(context.Background(), "bkt", "obj"); return err },
		"list":  func() error { _, err := st.List(context.Background(), "bkt", "p/", 0); return err },
	} {
		err := call()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d MiB", maxJSON>>20)) || !strings.Contains(err.Error(), ts.URL+"/storage/v1/b/bkt/o") {
			t.Errorf("%s: %v; want the answer too large, naming the URL", what, err)
		}
		if st.Retryable(err) {
			t.Errorf("%s: %v is retried", what, err)
		}
	}
}

// A server that answers every page with the same nextPageToken would
// have List loop for ever, its list growing until memory runs out: a
// token seen before is an error.
func TestListRepeatedToken(t *testing.T) {
	var pages int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages++
		if pages > 100 {
			http.Error(w, "too many pages", 500)
			return
		}
		next := map[string]string{"": "a", "a": "b", "b": "a"}[r.URL.Query().Get("pageToken")]
		json.NewEncoder(w).Encode(map[string]any{
			"items":         []map[string]string{{"name": fmt.Sprintf("p/x%d", pages), "size": "1", "crc32c": "AAAAAA=="}},
			"nextPageToken": next,
		})
	}))
	defer ts.Close()
	st := openOn(t, ts.URL, 1)
	got, err := st.List(context.Background(), "bkt", "p/", 0)
	if err == nil || !strings.Contains(err.Error(), `page token "a" again`) || pages != 3 || len(got) != 3 {
		t.Errorf("%d pages, %d objects, %v; want 3 and 3 and the repeated token", pages, len(got), err)
	}
}

// Sizes and generations that no object has are an error, not a download
// of -5 bytes.
func TestBadSizes(t *testing.T) {
	for _, c := range []struct{ size, gen, want string }{
		{`"-5"`, `"1"`, "a negative size -5"},
		{`"5"`, `"-1"`, "a negative generation -1"},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"name": "obj", "size": %s, "generation": %s, "crc32c": "AAAAAA=="}`, c.size, c.gen)
		}))
		st := openOn(t, ts.URL, 1)
		_, err := st.Attrs(context.Background(), "bkt", "obj")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "obj") {
			t.Errorf("size %s generation %s: %v; want %q", c.size, c.gen, err, c.want)
		}
		ts.Close()
	}
}
