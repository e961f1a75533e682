package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// TestDatasetsFetchCommand runs dspalab datasets fetch, verify, path and
// info --remote against fake-gcs-server serving a real part file, then
// runs cluster-trace on the fetched part.
func TestDatasetsFetchCommand(t *testing.T) {
	data, err := os.ReadFile("../../datasets/testdata/task_events-part-00001-of-00500.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects: []fakestorage.Object{{ObjectAttrs: fakestorage.ObjectAttrs{
			BucketName: "clusterdata-2011-2", Name: "task_events/part-00001-of-00500.csv.gz"}, Content: data}},
		Scheme: "http", Host: "127.0.0.1",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	endpoint := srv.URL() // datasets/gcs reads with the JSON API, which it serves on any host
	cache := t.TempDir()
	t.Setenv("DSPALAB_CACHE", cache)
	t.Setenv("DSPALAB_REGISTRY", "")

	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), args, &stdout, &stderr); code != want {
			t.Fatalf("dspalab %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	_, stderr := run(0, "datasets", "fetch", "clusterdata-2011-2/task_events", "--endpoint", endpoint)
	if !strings.Contains(stderr, "gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz: fetched 924634 bytes in ") ||
		!strings.Contains(stderr, "clusterdata-2011-2/task_events: 1 fetched (902.96KiB), 0 already cached, 0 failed; cache: "+cache+"\n") {
		t.Errorf("fetch:\n%s", stderr)
	}
	path := filepath.Join(cache, "gcs", "clusterdata-2011-2", "task_events", "part-00001-of-00500.csv.gz")
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the cached file: %v", err)
	}
	_, stderr = run(0, "datasets", "fetch", "clusterdata-2011-2/task_events", "--endpoint", endpoint)
	if !strings.Contains(stderr, "0 fetched (0B), 1 already cached, 0 failed") {
		t.Errorf("a second fetch:\n%s", stderr)
	}
	// a truncated cached part is fetched again, not "already cached" (F14)
	if err := os.Truncate(path, 500000); err != nil {
		t.Fatal(err)
	}
	_, stderr = run(0, "datasets", "fetch", "clusterdata-2011-2/task_events", "--endpoint", endpoint)
	if !strings.Contains(stderr, "gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz: the cached copy "+path+" is damaged (500000 bytes instead of 924634); fetching it again\n") ||
		!strings.Contains(stderr, "1 fetched (902.96KiB), 0 already cached, 0 failed") {
		t.Errorf("a fetch after truncation:\n%s", stderr)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the repaired file: %v", err)
	}
	stdout, _ := run(0, "datasets", "verify", "clusterdata-2011-2/task_events")
	if want := "part 1: ok: 924634 bytes, CRC32C 01jBPA==, MD5 H0zmR2yxGwh0SgOLK/4dRQ== match the object's attributes and the registry (" + path + ")\n" +
		"sample of part 1: ok: 25294 rows match the registry (sample/task_events-part-00001-first-30min.csv.gz)\n"; stdout != want {
		t.Errorf("verify: %q, want %q", stdout, want)
	}
	if stdout, _ := run(0, "datasets", "path", "clusterdata-2011-2/task_events"); stdout != path+"\n" {
		t.Errorf("path: %q", stdout)
	}
	stdout, _ = run(0, "datasets", "info", "clusterdata-2011-2/task_events", "--remote", "--endpoint", endpoint)
	if !strings.Contains(stdout, "\nOBJECT ") || !strings.Contains(stdout, "gs://clusterdata-2011-2/task_events/part-00001-of-00500.csv.gz  924634  01jBPA==\n") ||
		!strings.Contains(stdout, "\n1     924634   77776   1h23m31s  01jBPA==  "+path+"\n") {
		t.Errorf("info --remote:\n%s", stdout)
	}
	_, stderr = run(1, "datasets", "fetch", "clusterdata-2011-2/task_events", "--parts", "2", "--endpoint", endpoint)
	if !strings.Contains(stderr, "dspalab: clusterdata-2011-2/task_events: gs://clusterdata-2011-2/task_events/part-00002-of-00500.csv.gz does not exist (is the part number right?)\n") {
		t.Errorf("a missing part:\n%s", stderr)
	}

	// cluster-trace now replays the whole part: 84s of it
	stdout, stderr = run(0, "run", "cluster-trace", "--duration", "84s")
	if !strings.Contains(stderr, "cluster-trace: source tasks replays clusterdata-2011-2/task_events part 1 from the cache ("+path+")\n") ||
		!strings.Contains(stderr, "trace of tasks: 77776 rows read, 46819 records; skipped: 30957 without a machine_id\n") ||
		!strings.Contains(stdout, "records: 46819 emitted, ") {
		t.Errorf("run cluster-trace on the cache:\n%s\n%s", stdout, stderr)
	}
	stdout, _ = run(0, "run", "cluster-trace")
	if !strings.Contains(stdout, "records: 14650 emitted, ") {
		t.Errorf("the first 30s of the whole part replay the sample's records:\n%s", stdout)
	}
}
