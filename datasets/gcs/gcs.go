// Package gcs reads the objects of Google Cloud Storage buckets for
// package datasets (datasets.Fetch, datasets.ListObjects), with
// cloud.google.com/go/storage.
//
// It is a package of its own so that the storage client, with the gRPC,
// protobuf and OpenTelemetry packages it links (some 400 packages that
// register their descriptors before main runs), is linked only into what
// downloads: the dspalab datasets command, not the simulator, the runner
// or the grader that read data sets from the cache.
package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

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
	// when the URL has no path. STORAGE_EMULATOR_HOST is honoured too.
	Endpoint string
	// RetryDelay is the wait before the first retry of a failed request
	// (default 500ms); each further retry waits twice as long.
	RetryDelay time.Duration
	// Attempts is how many times a request is tried (default 4). Fetch
	// resumes a part as many times after the client gave up.
	Attempts int
}

// Open returns a store on GCS: anonymous unless o.Auth, on o.Endpoint if
// set, retrying a failed request o.Attempts times only (the client's
// default retries until the context ends, so "no network" would hang).
// It is the datasets.FetchOptions.Open of a fetch from GCS.
func (o Options) Open(ctx context.Context) (datasets.Store, error) {
	var co []option.ClientOption
	if !o.Auth {
		co = append(co, option.WithoutAuthentication())
	}
	if o.Endpoint != "" {
		co = append(co, option.WithEndpoint(endpointURL(o.Endpoint)))
	}
	c, err := storage.NewClient(ctx, co...)
	if err != nil {
		if o.Auth {
			return nil, fmt.Errorf("datasets: no Application Default Credentials for --auth (run gcloud auth application-default login): %w", err)
		}
		return nil, fmt.Errorf("datasets: creating the storage client: %w", err)
	}
	delay := o.RetryDelay
	if delay <= 0 {
		delay = 500 * time.Millisecond
	}
	attempts := o.Attempts
	if attempts <= 0 {
		attempts = 4
	}
	c.SetRetry(
		storage.WithBackoff(gax.Backoff{Initial: delay, Max: 8 * delay, Multiplier: 2}),
		storage.WithMaxAttempts(attempts),
		storage.WithPolicy(storage.RetryAlways),
	)
	return &store{c: c, opts: o}, nil
}

// endpointURL turns a host URL into the JSON API endpoint the client
// wants ("http://localhost:4443" -> "http://localhost:4443/storage/v1/").
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

// store is a datasets.Store on a storage client.
type store struct {
	c    *storage.Client
	opts Options
}

func (s *store) Attrs(ctx context.Context, bucket, object string) (datasets.ObjectAttrs, error) {
	a, err := s.c.Bucket(bucket).Object(object).Attrs(ctx)
	if err != nil {
		return datasets.ObjectAttrs{}, err
	}
	return attrs(a), nil
}

func attrs(a *storage.ObjectAttrs) datasets.ObjectAttrs {
	return datasets.ObjectAttrs{Name: a.Name, Size: a.Size, Generation: a.Generation, CRC32C: a.CRC32C, MD5: a.MD5}
}

// NewRangeReader reads the object as it is stored (no transcoding of a
// gzip-encoded object), without the client's checksum check, which holds
// only for whole reads: Fetch checks the whole download itself.
func (s *store) NewRangeReader(ctx context.Context, bucket, object string, generation, offset int64) (io.ReadCloser, error) {
	o := s.c.Bucket(bucket).Object(object).ReadCompressed(true)
	if generation > 0 {
		o = o.Generation(generation)
	}
	return o.NewRangeReader(ctx, offset, -1, storage.WithDisableReaderChecksum())
}

func (s *store) List(ctx context.Context, bucket, prefix string, limit int) ([]datasets.ObjectAttrs, error) {
	it := s.c.Bucket(bucket).Objects(ctx, &storage.Query{Prefix: prefix})
	var out []datasets.ObjectAttrs
	for limit <= 0 || len(out) < limit {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return out, err
		}
		out = append(out, attrs(a))
	}
	return out, nil
}

func (s *store) Retryable(err error) bool { return storage.ShouldRetry(err) }

// Explain says what a missing object or bucket, or a refused request,
// means for a person.
func (s *store) Explain(err error, uri string) error {
	var gerr *googleapi.Error
	switch {
	case errors.Is(err, storage.ErrObjectNotExist):
		return fmt.Errorf("%s does not exist (is the part number right?)", uri)
	case errors.Is(err, storage.ErrBucketNotExist):
		return fmt.Errorf("the bucket of %s does not exist", uri)
	case errors.As(err, &gerr) && (gerr.Code == 401 || gerr.Code == 403):
		if s.opts.Auth {
			return fmt.Errorf("access to %s denied (HTTP %d): your credentials may not read this bucket", uri, gerr.Code)
		}
		return fmt.Errorf("access to %s denied (HTTP %d): the bucket is not public; for a private bucket log in with gcloud auth application-default login and add --auth", uri, gerr.Code)
	case errors.As(err, &gerr) && gerr.Code == 404:
		return fmt.Errorf("%s does not exist (HTTP 404)", uri)
	}
	return err
}

// Host is the storage host the requests go to, for messages.
func (s *store) Host() string {
	if s.opts.Endpoint != "" {
		if u, err := url.Parse(endpointURL(s.opts.Endpoint)); err == nil {
			return u.Host
		}
		return s.opts.Endpoint
	}
	if h := os.Getenv("STORAGE_EMULATOR_HOST"); h != "" {
		return strings.TrimPrefix(strings.TrimPrefix(h, "http://"), "https://")
	}
	return "storage.googleapis.com"
}

func (s *store) Close() error { return s.c.Close() }
