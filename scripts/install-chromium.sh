#!/usr/bin/env bash
# Installs Debian's chromium for the report's browser test, idempotently. Never downloads a browser
# build of its own: only the distribution package is reachable on the lab machines and in CI.
# Prints the browser's path on stdout; everything else goes to stderr.
set -euo pipefail

say() { echo "[install-chromium] $*" >&2; }

for candidate in "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; exit 0; fi
done

if [ "$(id -u)" != 0 ]; then
  say "chromium is missing; install the Debian package 'chromium' (needs root) and run again"
  exit 2
fi
say "installing Debian's chromium (about a minute)"
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
[ -x /usr/bin/chromium ] || { say "apt-get finished but /usr/bin/chromium is still missing"; exit 1; }
echo /usr/bin/chromium
