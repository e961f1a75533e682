package gcs

import (
	"context"
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
