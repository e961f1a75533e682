#!/usr/bin/env bash
# Smoke test of the live view (dspalab watch) in a real terminal, by hand,
# not in CI: it starts the view in a tmux session, presses keys, resizes the
# window, and captures the pane after each step into a directory it prints
# (and shows the captures). Needs tmux (apt-get install tmux).
#
#   scripts/tui-smoke.sh [SCENARIO]        # default: backpressure
#
# It checks what a person would look at: the view draws, keys act (pause,
# step, speed, selection, help, restart; f fails the selected subtask and
# the job restarts (RESTARTING, DOWN, then recovered), F takes its worker
# down until the JobManager notices, c reports what the simulator says),
# keys do nothing under the help, it
# survives a resize to 80x24 (the graph's columns labelled, the subtask rows
# whole), NO_COLOR removes the colours, quitting (q) prints the summary and
# writes the outputs with actions.jsonl (exit 0), --speed takes a speed
# between the steps, and ctrl+c interrupts (exit 130).
set -euo pipefail
cd "$(dirname "$0")/.."

scenario="${1:-backpressure}"
command -v tmux >/dev/null || { echo "tui-smoke: tmux is needed (apt-get install tmux)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/dspalab-tui-smoke.XXXXXX")"
session="dspalab-smoke-$$"
go build -o "$work/dspalab" ./cmd/dspalab

cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; }
trap cleanup EXIT

fail() { echo "tui-smoke: FAIL: $*" >&2; echo "captures in $work" >&2; exit 1; }

# capture NAME: save the pane (plain text) as NAME.txt and show it
n=0
capture() {
	n=$((n + 1))
	local f
	f="$work/$(printf '%02d' "$n")-$1.txt"
	tmux capture-pane -p -t "$session" >"$f"
	echo "=== $1 ($(tmux display -p -t "$session" '#{window_width}x#{window_height}'))"
	cat "$f"
}
# key KEYS...: press keys, then give the view time to draw
key() { tmux send-keys -t "$session" "$@"; sleep 0.4; }
# expect NAME REGEX: the last capture matches
expect() { grep -Eq -- "$2" "$work/$(printf '%02d' "$n")-$1.txt" || fail "$1: no match for /$2/"; }

tmux new-session -d -s "$session" -x 100 -y 30 \
	"TERM=xterm-256color COLORTERM=truecolor '$work/dspalab' watch '$scenario' --speed 10 --out '$work/out'; echo \"EXIT=\$?\"; sleep 60"
sleep 2
capture running
expect running 'dspalab watch'
expect running 'JOB GRAPH'
expect running 'running · 10×'
expect running 'BUSY +BACKPR\. +BUFFERS +STATUS'
tmux capture-pane -e -p -t "$session" | grep -q $'\e\\[[0-9;]*38;' || fail "no colours on a colour terminal"

key Space
capture paused
expect paused '‖ paused'
key s
capture step
t1="$(grep -Eo '[0-9.]+s / ' "$work/$(printf '%02d' "$n")-step.txt" | head -1)"
key s
capture step-again
t2="$(grep -Eo '[0-9.]+s / ' "$work/$(printf '%02d' "$n")-step-again.txt" | head -1)"
[ "$t1" != "$t2" ] || fail "s did not advance ($t1)"

key + +
capture faster
expect faster 'paused · 50×'
key - - - - - - - - - - - - - - - -
capture slowest
expect slowest 'paused · 0\.1×'

key Down Right
capture select
expect select '› parse'
expect select 'SUBTASKS of parse'
key f
capture fail-task
expect fail-task 'failure injected into parse\[0\]'
expect fail-task 'RESTARTING since'
expect fail-task 'parse .*DOWN'
key s s
capture recovered
expect recovered 'recovered: processing again'
grep -q 'RESTARTING' "$work/$(printf '%02d' "$n")-recovered.txt" && fail "recovered: still RESTARTING"
key F
capture fail-worker
expect fail-worker 'failure injected into the worker that runs parse\[0\]'
expect fail-worker 'WORKER 0 DOWN since'
key c
capture checkpoint
expect checkpoint 'checkpoint: '
expect checkpoint 'duplicated [0-9]+ · lost [0-9]+'

key '?'
capture help
expect help 'Reading the view'
key Space
capture help-space
expect help-space '‖ paused'
expect help-space 'Reading the view'
key Escape

tmux resize-window -t "$session" -x 80 -y 24
sleep 0.5
capture small-80x24
expect small-80x24 'JOB GRAPH'
expect small-80x24 'EVENTS'
widest="$(LC_ALL=C.UTF-8 wc -L <"$work/$(printf '%02d' "$n")-small-80x24.txt")"
[ "$widest" -le 80 ] || fail "a line $widest wide at 80x24"
expect small-80x24 'BUFFERS +STATUS'
expect small-80x24 '› #0 .* out +[0-9.k]+/s'

key r
capture restarted
expect restarted 'run 2, started again with r'

key + + + + + + + + + + + + + + Space
sleep 1
capture max
expect max 'max'
key q
sleep 1
capture quit
expect quit 'diagnosis:'
expect quit 'EXIT=0'
for f in summary.json timeseries.csv events.jsonl actions.jsonl; do
	[ -f "$work/out/$f" ] || fail "$f was not written"
done
echo "=== actions.jsonl"
cat "$work/out/actions.jsonl"
tmux kill-session -t "$session"

# NO_COLOR: the same view without any colour
tmux new-session -d -s "$session" -x 100 -y 30 \
	"NO_COLOR=1 TERM=xterm-256color COLORTERM=truecolor '$work/dspalab' watch '$scenario' --speed 10; sleep 60"
sleep 2
tmux capture-pane -e -p -t "$session" >"$work/no-color.ansi"
if grep -q $'\e\\[[0-9;]*[34]8;' "$work/no-color.ansi"; then
	fail "colours with NO_COLOR=1 (see $work/no-color.ansi)"
fi
grep -q 'HIGH' "$work/no-color.ansi" || fail "NO_COLOR: the statuses are not shown"
key q
tmux kill-session -t "$session"

# --speed between the steps, and ctrl+c: an interrupt, exit status 130
tmux new-session -d -s "$session" -x 80 -y 24 \
	"TERM=xterm-256color '$work/dspalab' watch '$scenario' --speed 3; echo \"EXIT=\$?\"; sleep 60"
sleep 2
capture speed-3
expect speed-3 'running · 3×'
key C-c
sleep 1
capture interrupted
expect interrupted 'PARTIAL: interrupted at'
expect interrupted 'EXIT=130'

echo "tui-smoke: ok; captures in $work"
