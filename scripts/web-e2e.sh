#!/usr/bin/env bash
# The web app's end-to-end tests in a real browser: Debian's chromium driven
# headless by playwright-core (pinned in tests/web/package-lock.json) against
# `mancala serve` on an ephemeral port:
#
#   scripts/web-e2e.sh [--screenshots DIR]
#
# Installs what is missing: chromium from Debian's packages (as root, or
# with sudo), the npm packages with `npm ci`. Builds the binary (debug
# profile, as `cargo test` does) unless MANCALA_BIN names one. Screenshots
# at 1280 and 390 px, light and dark, go to DIR (default results/web/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shots="$root/results/web"
if [[ "${1:-}" == "--screenshots" ]]; then
    shots=$(realpath -m "$2")
    shift 2
fi

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
if ! command -v chromium >/dev/null; then
    echo "installing Debian's chromium..." >&2
    as_root apt-get update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "installing Node.js and npm..." >&2
    as_root apt-get update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm >/dev/null
fi
chromium --version 2>/dev/null || true

(cd "$root/tests/web" && npm ci --no-audit --no-fund --loglevel=error)

if [[ -z "${MANCALA_BIN:-}" ]]; then
    (cd "$root" && cargo build --quiet --bin mancala)
    MANCALA_BIN="$root/target/debug/mancala"
fi
mkdir -p "$shots"
cd "$root/tests/web"
MANCALA_BIN="$MANCALA_BIN" SCREENSHOTS="$shots" node e2e.mjs
