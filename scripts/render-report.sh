#!/usr/bin/env bash
# Render a dspalab report (dspalab report RUN_DIR -o report.html) to a PNG
# with headless Chromium, to look at it or check it in a review:
#
#   scripts/render-report.sh report.html [report.png] [WIDTH] [HEIGHT]
#
# WIDTH and HEIGHT are the window in CSS pixels (default 1200 x 5200: the
# screenshot is the window, so make it as tall as the page). Needs Debian's
# chromium (apt-get install chromium) or chromium/google-chrome on PATH
# (or CHROMIUM=/path/to/chrome). Run by hand; CI does not run it, and it
# exits 0 with a message when no Chromium is installed.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 4 ]; then
	echo "usage: $0 report.html [report.png] [WIDTH] [HEIGHT]" >&2
	exit 2
fi
html=$1
png=${2:-${html%.html}.png}
width=${3:-1200}
height=${4:-5200}
if [ ! -f "$html" ]; then
	echo "$0: $html does not exist (make it with: dspalab report RUN_DIR -o $html)" >&2
	exit 1
fi

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
	for b in chromium chromium-browser google-chrome google-chrome-stable; do
		if command -v "$b" >/dev/null 2>&1; then
			browser=$b
			break
		fi
	done
fi
if [ -z "$browser" ]; then
	echo "$0: no Chromium found; install it (Debian: apt-get install chromium) or set CHROMIUM; nothing rendered" >&2
	exit 0
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
abs_html=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
abs_png=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")

# The flags keep Chromium off the network (this page needs none) and from
# setting up a profile; --no-sandbox lets it run as root in containers.
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--hide-scrollbars --user-data-dir="$profile" \
	--window-size="$width,$height" --screenshot="$abs_png" "file://$abs_html" \
	>/dev/null 2>&1
if [ ! -s "$abs_png" ]; then
	echo "$0: $browser wrote no screenshot" >&2
	exit 1
fi
echo "wrote $png"
