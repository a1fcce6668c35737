#!/usr/bin/env bash
# Screenshots of `mancala report` pages in headless Chromium, at a desktop
# width (1280 px) and a phone width (390 px), in light and dark mode:
#
#   scripts/screenshot-report.sh [--out DIR] REPORT.html...
#
# writes DIR/<name>-desktop.png, <name>-phone.png, <name>-desktop-dark.png
# and <name>-phone-dark.png for each report (DIR defaults to
# screenshots/, <name> is the report's folder and file name). Needs Debian's
# chromium (`apt-get install chromium`). Pages are loaded from files with
# the network off (--host-resolver-rules sends every host nowhere), which
# also shows that a report needs nothing from elsewhere.
set -euo pipefail

out=screenshots
if [[ "${1:-}" == "--out" ]]; then
    out=$2
    shift 2
fi
if [[ $# -eq 0 ]]; then
    echo "usage: $0 [--out DIR] REPORT.html..." >&2
    exit 2
fi
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z "$browser" ]]; then
    echo "no chromium: apt-get install chromium" >&2
    exit 2
fi
mkdir -p "$out"
# A tall window captures a whole report; Chromium crops nothing else.
height=${SCREENSHOT_HEIGHT:-6000}

shot() { # shot FILE WIDTH PNG [EXTRA FLAGS...]
    local file=$1 width=$2 png=$3
    shift 3
    # A private profile per shot: no state carries from one to the next.
    local profile
    profile=$(mktemp -d)
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --no-default-browser-check --user-data-dir="$profile" \
        --host-resolver-rules="MAP * ~NOTFOUND" \
        --window-size="$width,$height" --screenshot="$png" "$@" \
        "file://$(realpath "$file")" >/dev/null 2>&1
    rm -rf "$profile"
    echo "$png"
}

for file in "$@"; do
    if [[ ! -f "$file" ]]; then
        echo "no such report: $file" >&2
        exit 2
    fi
    dir=$(basename "$(dirname "$(realpath "$file")")")
    name="$dir-$(basename "$file" .html)"
    shot "$file" 1280 "$out/$name-desktop.png"
    shot "$file" 390 "$out/$name-phone.png"
    # Dark mode: --force-dark-mode makes prefers-color-scheme match dark.
    # (Blink's own setting works too, but its values are easy to get wrong:
    # preferredColorScheme=0 is dark and 1 light.)
    shot "$file" 1280 "$out/$name-desktop-dark.png" --force-dark-mode
    shot "$file" 390 "$out/$name-phone-dark.png" --force-dark-mode
done
