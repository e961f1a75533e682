#!/usr/bin/env bash
# Compares the simulator's hot-path benchmarks of an earlier commit (REF)
# with the working tree, on this machine, in one sitting:
#
#   scripts/bench-compare.sh [-n COUNT] [--callgrind] REF
#
# Both sides run the working tree's sim/bench_test.go (copied into REF's
# tree, so that both measure the same scenarios); the working tree's side
# is built with cmd/dspalab/default.pgo, as the dspalab binary is (REF's
# without PGO, unless it has a default.pgo of its own). The two test
# binaries run interleaved, COUNT times each (default 6), so that a
# machine that slows down for a while slows both; benchstat (installed
# with `go install golang.org/x/perf/cmd/benchstat@latest` when missing)
# prints records/s and events/s with their spread and p-values.
#
# Wall-clock figures on a shared virtual machine can spread by 20-40%.
# --callgrind also counts each benchmark's instructions under valgrind
# (Debian: apt-get install valgrind), one run each, inside sim.(*Sim).RunUntil:
# a deterministic count, the same on every run, to compare where the
# wall clock is too noisy to tell.
set -euo pipefail
count=6
callgrind=false
while [ $# -gt 1 ]; do
	case "$1" in
	-n) count="$2"; shift 2 ;;
	--callgrind) callgrind=true; shift ;;
	*) echo "bench-compare: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ $# -ne 1 ]; then
	echo "usage: scripts/bench-compare.sh [-n COUNT] [--callgrind] REF" >&2
	exit 2
fi
ref="$1"
cd "$(dirname "$0")/.."
root="$PWD"
git rev-parse --verify --quiet "$ref^{commit}" >/dev/null || { echo "bench-compare: $ref is not a commit" >&2; exit 2; }
benches='TandemUnbounded|TandemCredit|Backpressure|Sensors1000'
tmp="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$tmp/ref" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

git worktree add --detach --quiet "$tmp/ref" "$ref"
cp sim/bench_test.go "$tmp/ref/sim/bench_test.go"
refpgo=off
[ -f "$tmp/ref/cmd/dspalab/default.pgo" ] && refpgo="$tmp/ref/cmd/dspalab/default.pgo"
(cd "$tmp/ref" && go test -c -pgo="$refpgo" -o "$tmp/ref.test" ./sim)
go test -c -pgo="$root/cmd/dspalab/default.pgo" -o "$tmp/now.test" ./sim

for i in $(seq "$count"); do
	echo "run $i of $count" >&2
	"$tmp/ref.test" -test.run '^$' -test.bench "^Benchmark($benches)\$" -test.benchtime 2x -test.cpu 1 >>"$tmp/ref.txt"
	"$tmp/now.test" -test.run '^$' -test.bench "^Benchmark($benches)\$" -test.benchtime 2x -test.cpu 1 >>"$tmp/now.txt"
done
benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
[ -x "$benchstat" ] || go install golang.org/x/perf/cmd/benchstat@latest
"$benchstat" "$ref=$tmp/ref.txt" "now=$tmp/now.txt"

if $callgrind; then
	echo
	printf '%-16s %16s %16s %8s\n' benchmark "instr. $ref" "instr. now" change
	for b in ${benches//|/ }; do
		ir() {
			GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
				--toggle-collect='*sim.(*Sim).RunUntil*' --callgrind-out-file="$tmp/cg.out" \
				"$1" -test.run '^$' -test.bench "^Benchmark$b\$" -test.benchtime 1x 2>&1 |
				sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
		}
		a=$(ir "$tmp/ref.test")
		z=$(ir "$tmp/now.test")
		awk -v b="$b" -v a="$a" -v z="$z" 'BEGIN { printf "%-16s %16s %16s %+7.1f%%\n", b, a, z, (z - a) * 100 / a }'
	done
fi
