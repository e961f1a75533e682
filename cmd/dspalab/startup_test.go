package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// heavyPackages are the import paths (prefixes) of the libraries whose
// package initialisation cost most of dspalab's start-up (GODEBUG=inittrace=1):
// glamour with the chroma lexers and styles and the bluemonday sanitiser
// it brought (glamourPackages, about 15ms and 6MB of allocations), and
// cloudPackages. No package of the module links them any more; they stay
// listed so that they do not come back.
var heavyPackages = append(slices.Clone(glamourPackages), cloudPackages...)

// glamourPackages: exercises/render was glamour's wrapper; it is now a
// renderer of its own on goldmark's parser and lipgloss. TestInitWork
// fails if "dspalab --help" runs the init of any of them.
var glamourPackages = []string{
	"charm.land/glamour/",
	"github.com/alecthomas/chroma/",
	"github.com/microcosm-cc/bluemonday",
}

// cloudPackages are the GCS client and what it links: gRPC, the protobuf
// descriptors of googleapis, envoy's control plane, OpenTelemetry (about
// 6ms of initialisation in some 400 packages, in every dspalab process
// when the command linked them). datasets/gcs speaks GCS's JSON API with
// net/http instead (google.golang.org/api's generated storage client and
// its option package link gRPC too). This command's test binary still
// links them, through fake-gcs-server, so only the go list check below
// covers them, not TestInitWork.
var cloudPackages = []string{
	"cloud.google.com/go/storage",
	"google.golang.org/api/",
	"google.golang.org/genproto/",
	"google.golang.org/grpc",
	"go.opentelemetry.io/",
	"github.com/envoyproxy/",
	"github.com/googleapis/gax-go/",
}

// TestHeavyPackagesStayInTheirCommands checks that no package of the
// module links a heavy package, this command included, as the packages
// are built without their tests: so no dspalab process, grading worker,
// sweep or report pays their start-up.
func TestHeavyPackagesStayInTheirCommands(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", `{{if .Module}}{{if .Module.Main}}{{.ImportPath}}{{"\t"}}{{join .Deps " "}}{{end}}{{end}}`, "github.com/dspalab/dspalab/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{} // the module's packages and all they link
	for line := range strings.Lines(string(out)) {
		pkg, all, _ := strings.Cut(strings.TrimSpace(line), "\t")
		if pkg != "" {
			deps[pkg] = strings.Fields(all)
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list found %d packages of the module:\n%s", len(deps), out)
	}
	for _, wrapper := range []string{"github.com/dspalab/dspalab/datasets/gcs", "github.com/dspalab/dspalab/exercises/render"} {
		if _, ok := deps[wrapper]; !ok {
			t.Errorf("go list does not know %s", wrapper)
		}
	}
	for pkg, linked := range deps {
		for _, d := range linked {
			if isCloud(d) {
				t.Errorf("%s links %s: no package of the module may (datasets/gcs reads GCS with net/http)", pkg, d)
				break
			}
			if isHeavy(d) {
				t.Errorf("%s links %s: no package of the module may (exercises/render renders Markdown with goldmark and lipgloss; it costs every process that links it its start-up)", pkg, d)
				break // one is enough to say
			}
		}
	}
}

func isHeavy(pkg string) bool { return hasPrefix(pkg, heavyPackages) }

func isCloud(pkg string) bool { return hasPrefix(pkg, cloudPackages) }

func hasPrefix(pkg string, prefixes []string) bool {
	for _, h := range prefixes {
		if strings.HasPrefix(pkg, h) {
			return true
		}
	}
	return false
}

// initRecord is one line of GODEBUG=inittrace=1: a package's init work.
type initRecord struct {
	pkg    string
	ms     float64 // wall clock
	bytes  int64
	allocs int64
}

// parseInittrace reads the "init PKG @T ms, C ms clock, B bytes, N allocs"
// lines of stderr.
func parseInittrace(stderr []byte) []initRecord {
	var recs []initRecord
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// init PKG @T ms, C ms clock, B bytes, N allocs
		if len(f) != 11 || f[0] != "init" || f[6] != "clock," || f[10] != "allocs" {
			continue
		}
		var r initRecord
		r.pkg = f[1]
		r.ms, _ = strconv.ParseFloat(f[4], 64)
		r.bytes, _ = strconv.ParseInt(f[7], 10, 64)
		r.allocs, _ = strconv.ParseInt(f[9], 10, 64)
		recs = append(recs, r)
	}
	return recs
}

// maxOwnInitAllocs bounds the allocations of the package initialisation
// of each of the module's packages: a table or a few regular expressions
// are fine, parsing a template or a schema at start-up is not (the
// report's page template took 2496): do it on first use, with
// sync.OnceValue. initAllocsAllowed raises the bound for a package that
// needs more at every start.
const maxOwnInitAllocs = 500

// initAllocsAllowed: sim/scenario compiles its unit and name expressions
// at init (about 2100 allocations in all), which every command that reads
// a scenario needs at once.
var initAllocsAllowed = map[string]int64{
	"github.com/dspalab/dspalab/sim/scenario": 4000,
}

// TestInitWork runs this test binary as "dspalab --help" with
// GODEBUG=inittrace=1 and checks that none of the module's packages does
// more than maxOwnInitAllocs allocations (or its initAllocsAllowed) before
// main, and that none of glamourPackages is initialised (linked) at all.
func TestInitWork(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--help")
	cmd.Args[0] = "dspalab" // testscript.Main runs the command named by argv[0]
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dspalab --help: %v\n%s", err, stderr.Bytes())
	}
	recs := parseInittrace(stderr.Bytes())
	own := 0
	for _, r := range recs {
		if slices.ContainsFunc(glamourPackages, func(h string) bool { return strings.HasPrefix(r.pkg, h) }) {
			t.Errorf("dspalab links %s again: its init makes %d allocations (%d bytes) in every process", r.pkg, r.allocs, r.bytes)
		}
		if !strings.HasPrefix(r.pkg, "github.com/dspalab/dspalab/") {
			continue
		}
		own++
		limit := int64(maxOwnInitAllocs)
		if l, ok := initAllocsAllowed[r.pkg]; ok {
			limit = l
		}
		if r.allocs > limit {
			t.Errorf("the init of %s makes %d allocations (%d bytes), more than %d: move the work to its first use",
				r.pkg, r.allocs, r.bytes, limit)
		}
	}
	if own < 5 {
		t.Fatalf("inittrace names %d of the module's packages; stderr:\n%s", own, stderr.Bytes())
	}
}

// BenchmarkStartup builds dspalab and reports the wall time of whole
// processes (ms/op) of "dspalab --help" and of "dspalab run" on a tiny
// scenario (mm1 for 21s, one second after its warmup), and the package
// initialisation that GODEBUG=inittrace=1 reports for them (init-ms,
// init-allocs). Run it with -benchtime=100x or more: one process is a few
// milliseconds, and the machine's load shows in each.
func BenchmarkStartup(b *testing.B) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command:", err)
	}
	bin := filepath.Join(b.TempDir(), "dspalab")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"--help"}, {"run", "mm1", "--duration", "21s"}} {
		b.Run(args[0], func(b *testing.B) {
			run := func(env ...string) []byte {
				cmd := exec.Command(bin, args...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				cmd.Env = append(os.Environ(), env...)
				if err := cmd.Run(); err != nil {
					b.Fatalf("dspalab %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
				}
				return stderr.Bytes()
			}
			var initMs float64
			var initAllocs int64
			for _, r := range parseInittrace(run("GODEBUG=inittrace=1")) {
				initMs += r.ms
				initAllocs += r.allocs
			}
			for b.Loop() {
				run()
			}
			b.ReportMetric(initMs, "init-ms")
			b.ReportMetric(float64(initAllocs), "init-allocs")
		})
	}
}
