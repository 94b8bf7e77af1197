#!/usr/bin/env bash
# Installs the lab's real servers, idempotently, into $ELECTRUM_BENCH_HOME (default ~/.cache/electrum-bench).
# Usage: scripts/install-lab.sh [btcd] [electrumx] [electrs]   (no argument: all three)
# Builds are cached outside the repository, so a second run returns in seconds.
set -euo pipefail

HOME_DIR="${ELECTRUM_BENCH_HOME:-$HOME/.cache/electrum-bench}"
BTCD_VERSION=v0.24.2
EX_VERSION=2.0.0
ELECTRS_VERSION=0.12.0
mkdir -p "$HOME_DIR"

say() { echo "[install-lab] $*" >&2; }
need() {
  command -v "$1" >/dev/null 2>&1 || { say "missing tool: $1 ($2). Install it and run again."; exit 2; }
}

apt_install() {
  # Only as root and only when a package is really missing; CI runs as root on these machines.
  if [ "$(id -u)" != 0 ]; then say "need the Debian packages: $* (run as root or install them)"; exit 2; fi
  if [ -z "${_APT_UPDATED:-}" ]; then apt-get update -qq >&2; _APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

install_btcd() {
  local bin="$HOME_DIR/btcd-$BTCD_VERSION/bin"
  if [ -x "$bin/btcd" ] && [ -x "$bin/btcctl" ]; then say "btcd $BTCD_VERSION cached"; return; fi
  need go "Go toolchain, https://go.dev"
  say "building btcd $BTCD_VERSION (about 2 min the first time)"
  GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/btcsuite/btcd@$BTCD_VERSION" \
    "github.com/btcsuite/btcd/cmd/btcctl@$BTCD_VERSION" >&2
}

install_electrumx() {
  local venv="$HOME_DIR/electrumx-$EX_VERSION"
  # The lab's ElectrumX also listens with TLS on certificates made with the openssl CLI
  # (src/lab/certificates.ts); Debian base images lack it (package openssl, priority optional).
  command -v openssl >/dev/null 2>&1 || apt_install openssl
  if [ -x "$venv/bin/electrumx_server" ] && "$venv/bin/python" -c 'import plyvel' 2>/dev/null; then
    say "ElectrumX $EX_VERSION cached"; return
  fi
  need python3 "Python 3.10 or newer"
  say "installing ElectrumX (e-x==$EX_VERSION) in a venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "e-x==$EX_VERSION" plyvel >&2
}

install_electrs() {
  local root="$HOME_DIR/electrs-$ELECTRS_VERSION"
  if [ -x "$root/bin/electrs" ]; then say "electrs $ELECTRS_VERSION cached"; return; fi
  need cargo "Rust toolchain >= 1.85, https://rustup.rs"
  # librocksdb-sys generates its bindings with bindgen, which loads libclang at build time.
  if ! ldconfig -p | grep -q 'libclang\.so\|libclang-[0-9.]*\.so'; then apt_install libclang-dev; fi
  command -v c++ >/dev/null 2>&1 || apt_install g++
  say "building electrs $ELECTRS_VERSION with bundled RocksDB (about 23 min on 2 cores, once per machine)"
  cargo install electrs --version "$ELECTRS_VERSION" --locked --root "$root.partial" >&2
  mv "$root.partial" "$root"
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(btcd electrumx electrs)
for t in "${targets[@]}"; do
  case "$t" in
    btcd) install_btcd ;;
    electrumx) install_electrumx ;;
    electrs) install_electrs ;;
    *) say "unknown component: $t (expected btcd, electrumx or electrs)"; exit 2 ;;
  esac
done
