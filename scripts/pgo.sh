#!/usr/bin/env bash
# Regenerates cmd/dspalab/default.pgo, the CPU profile that `go build` uses
# for profile-guided optimisation of the dspalab binary (Go's -pgo=auto
# picks up default.pgo in the main package's directory; see
# https://go.dev/doc/pgo). The profile is taken from the simulator's
# hot-path benchmarks, which are what long runs and sweeps spend their time
# on: the two-stage tandem (unbounded and credit-based), the course's
# back-pressure job and sensors-1000. Run it after a change that reshapes
# the hot path; a stale profile still builds (Go matches it by function
# name and ignores what it no longer finds), it only optimises less.
#
# The benchmarks of ./sim are not built with it by default (go test applies
# -pgo=auto to main packages only); to measure what the binary runs:
#   go test -run '^$' -bench Tandem -pgo="$PWD/cmd/dspalab/default.pgo" ./sim
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go test -run '^$' -bench '^Benchmark(TandemUnbounded|TandemCredit|Backpressure|Sensors1000|KeyedTumblingWindow)$' \
	-benchtime 10x -cpuprofile "$tmp/cpu.pprof" -o "$tmp/sim.test" ./sim >/dev/null
mv "$tmp/cpu.pprof" cmd/dspalab/default.pgo
echo "wrote cmd/dspalab/default.pgo ($(wc -c <cmd/dspalab/default.pgo) bytes)"
