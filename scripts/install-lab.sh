#!/usr/bin/env bash
# Installs the lab's real servers, idempotently, into $ELECTRUM_BENCH_HOME (default ~/.cache/electrum-bench).
# Usage: scripts/install-lab.sh [btcd] [electrumx] [electrs] [esplora] [mempool-electrs] [fulcrum] [prometheus] [electrumx@VERSION]... [bdk] [electrum-wallet]
#   (no argument: the servers, no other versions; electrumx@1.20.0: that e-x release too, in a venv
#   of its own; bdk: the real BDK wallet (PyPI bdkpython) the bdk workload is held to;
#   electrum-wallet: the real Electrum wallet the electrum workload is held to, from a source
#   archive (ELECTRUM_BENCH_ELECTRUM_SRC, default ../shared/mirror/electrum-4.8.1.tar.gz))
# Esplora (Blockstream's electrs), mempool's electrs and Fulcrum are in no registry: they build from
# source at pinned commits, from git where reachable, else from local archives
# (ELECTRUM_BENCH_ESPLORA_SRC, ELECTRUM_BENCH_ESPLORA_BITCOIN_SRC, ELECTRUM_BENCH_MEMPOOL_ELECTRS_SRC,
# ELECTRUM_BENCH_FULCRUM_SRC: a .tar.gz or an unpacked folder).
# Builds are cached outside the repository, so a second run returns in seconds.
set -euo pipefail

HOME_DIR="${ELECTRUM_BENCH_HOME:-$HOME/.cache/electrum-bench}"
BTCD_VERSION=v0.24.2
EX_VERSION=2.0.0
BDK_PYTHON_VERSION=3.1.1
ELECTRUM_WALLET_VERSION=4.8.1
ELECTRS_VERSION=0.12.0
ESPLORA_REPO=https://github.com/Blockstream/electrs
ESPLORA_COMMIT=abfbce73eb0504630a09f1e6599114ef4fa25bda
ESPLORA_BITCOIN_REPO=https://github.com/Blockstream/rust-bitcoin
ESPLORA_BITCOIN_COMMIT=dd131855022c2cdd691a531c1d5c2f5ab707e4d4
MEMPOOL_ELECTRS_REPO=https://github.com/mempool/electrs
MEMPOOL_ELECTRS_COMMIT=80758eac152ff153c2f3ff139470edb7f086b782
FULCRUM_REPO=https://github.com/cculianu/Fulcrum
FULCRUM_COMMIT=01ed27b200d0edd41235910243800c5a0be15391
mkdir -p "$HOME_DIR"
# One install at a time per cache: a second one (another `lab up`, a test setup) waits here
# instead of building into the same folders.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$HOME_DIR/.install.lock"
  flock 9
fi

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
  local version="${1:-$EX_VERSION}"
  local venv="$HOME_DIR/electrumx-$version"
  # The lab's ElectrumX also listens with TLS on certificates made with the openssl CLI
  # (src/lab/certificates.ts); Debian base images lack it (package openssl, priority optional).
  command -v openssl >/dev/null 2>&1 || apt_install openssl
  # The lab's own ElectrumX also serves ws:// and wss://, through aiorpcx's WSTransport, which needs
  # the websockets package (e-x 2.0 requires aiorpcx[ws]; a venv made without it gains it here).
  local modules=plyvel
  [ "$version" = "$EX_VERSION" ] && modules="plyvel, websockets"
  # -f, not -x: e-x 1.16 installs the script unexecutable; the lab runs it with the venv's python.
  if [ -f "$venv/bin/electrumx_server" ] && "$venv/bin/python" -c "import $modules" 2>/dev/null; then
    say "ElectrumX $version cached"; return
  fi
  if [ -f "$venv/bin/electrumx_server" ] && "$venv/bin/python" -c 'import plyvel' 2>/dev/null; then
    say "adding websockets to ElectrumX $version's venv (its ws:// and wss:// listeners)"
    "$venv/bin/pip" install -q --disable-pip-version-check "aiorpcx[ws]" >&2 && return
    say "cannot install websockets into $venv from PyPI"; exit 2
  fi
  need python3 "Python 3.10 or newer"
  say "installing ElectrumX (e-x==$version) in a venv"
  # Built in place (a venv's scripts name its folder in their first line, so it cannot be moved);
  # the check above sees an unfinished one as missing.
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q --disable-pip-version-check "e-x==$version" plyvel >&2; then
    rm -rf "$venv"
    say "cannot install e-x==$version from PyPI (is it a release? 1.16.0 to 2.0.0 are)"; exit 2
  fi
}

install_bdk() {
  local venv="$HOME_DIR/bdk-$BDK_PYTHON_VERSION"
  if "$venv/bin/python" -c 'import bdkpython' 2>/dev/null; then say "bdkpython $BDK_PYTHON_VERSION cached"; return; fi
  need python3 "Python 3.10 or newer"
  say "installing the real BDK wallet (bdkpython==$BDK_PYTHON_VERSION) in a venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q --disable-pip-version-check "bdkpython==$BDK_PYTHON_VERSION" >&2; then
    rm -rf "$venv"
    say "cannot install bdkpython==$BDK_PYTHON_VERSION from PyPI"; exit 2
  fi
}

install_electrum_wallet() {
  local venv="$HOME_DIR/electrum-$ELECTRUM_WALLET_VERSION"
  local repo; repo="$(cd "$(dirname "$0")/.." && pwd)"
  local archive="${ELECTRUM_BENCH_ELECTRUM_SRC:-$repo/../shared/mirror/electrum-$ELECTRUM_WALLET_VERSION.tar.gz}"
  if [ -x "$venv/bin/electrum" ] && "$venv/bin/python" -c 'import electrum, electrum_ecc' 2>/dev/null; then
    say "Electrum $ELECTRUM_WALLET_VERSION cached"; return
  fi
  # Not on PyPI as a package we could pin to a tag: the release's own source archive.
  [ -f "$archive" ] || { say "Electrum $ELECTRUM_WALLET_VERSION: source archive not found: $archive (set ELECTRUM_BENCH_ELECTRUM_SRC)"; exit 2; }
  need python3 "Python 3.10 or newer"
  # electrum_ecc binds Debian's libsecp256k1 instead of compiling its own (which wants autotools).
  dpkg -s libsecp256k1-dev >/dev/null 2>&1 || apt_install libsecp256k1-dev
  say "installing the real Electrum wallet $ELECTRUM_WALLET_VERSION from $archive in a venv"
  local work="$HOME_DIR/build/electrum"
  rm -rf "$work" "$venv"; mkdir -p "$work"
  tar -xzf "$archive" -C "$work" --strip-components=1
  python3 -m venv "$venv"
  # cryptography: Electrum's dnspython[DNSSEC] extra, which its requirements cannot list.
  if ! ELECTRUM_ECC_DONT_COMPILE=1 "$venv/bin/pip" install -q --disable-pip-version-check "$work" cryptography >&2; then
    rm -rf "$venv" "$work"
    say "cannot install Electrum $ELECTRUM_WALLET_VERSION and its dependencies from PyPI"; exit 2
  fi
  rm -rf "$work"
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

# Puts the source of NAME at COMMIT into DEST: from ARCHIVE (a .tar.gz with one top folder, or a
# folder) when given, else from its git repository.
fetch_source() {
  local name="$1" repo="$2" commit="$3" archive="$4" dest="$5"
  rm -rf "$dest"; mkdir -p "$dest"
  if [ -n "$archive" ]; then
    if [ -d "$archive" ]; then cp -a "$archive/." "$dest/"
    elif [ -f "$archive" ]; then tar -xzf "$archive" -C "$dest" --strip-components=1
    else say "$name: source archive not found: $archive"; exit 2; fi
    say "$name: source from $archive"
    return
  fi
  need git "git, to fetch $name's source (or set its *_SRC variable to a source archive)"
  say "$name: fetching $repo at $commit"
  git init -q "$dest"
  if ! git -C "$dest" fetch -q --depth 1 "$repo" "$commit" 2>/dev/null; then
    say "$name: cannot reach $repo; set its *_SRC variable to a source archive of commit $commit"
    exit 2
  fi
  git -C "$dest" checkout -q FETCH_HEAD
}

# What building Blockstream's electrs or a fork of it from source takes: cargo, python3 (to adapt
# its build files), and libclang and a C++ compiler for librocksdb-sys.
need_electrs_build_tools() {
  need cargo "Rust toolchain, https://rustup.rs"
  need python3 "Python 3, to adapt the build files"
  if ! ldconfig -p | grep -q 'libclang\.so\|libclang-[0-9.]*\.so'; then apt_install libclang-dev; fi
  command -v c++ >/dev/null 2>&1 || apt_install g++
}

# Builds the electrs binary in the cargo project WORK, caches it as DIR/bin/electrs, then deletes BUILD.
build_electrs_into() {
  local work="$1" dir="$2" build="$3"
  (cd "$work" && cargo build --release --bin electrs) >&2
  mkdir -p "$dir.partial/bin"
  cp "$work/target/release/electrs" "$dir.partial/bin/electrs"
  rm -rf "$dir"; mv "$dir.partial" "$dir"
  rm -rf "$build"
}

install_esplora() {
  local dir="$HOME_DIR/esplora-${ESPLORA_COMMIT:0:7}"
  if [ -x "$dir/bin/electrs" ]; then say "Esplora electrs ${ESPLORA_COMMIT:0:7} cached"; return; fi
  need_electrs_build_tools
  local work="$HOME_DIR/build/esplora"
  fetch_source "Esplora electrs" "$ESPLORA_REPO" "$ESPLORA_COMMIT" "${ELECTRUM_BENCH_ESPLORA_SRC:-}" "$work/electrs"
  fetch_source "Blockstream rust-bitcoin" "$ESPLORA_BITCOIN_REPO" "$ESPLORA_BITCOIN_COMMIT" \
    "${ELECTRUM_BENCH_ESPLORA_BITCOIN_SRC:-}" "$work/rust-bitcoin"
  # Cargo resolves every [patch] and lock-file source, even of features we never build: the bitcoin
  # fork comes from the folder fetched above, and the patches of the liquid and electrum-discovery
  # features (elements, electrum-client) are dropped with their lock entries.
  python3 - "$work/electrs" <<'PY'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
toml = root / 'Cargo.toml'
text = toml.read_text()
head, sep, _ = text.partition('[patch.crates-io.bitcoin]')
assert sep, 'Cargo.toml: no [patch.crates-io.bitcoin] section'
toml.write_text(head + '[patch.crates-io.bitcoin]\npath = "../rust-bitcoin"\n')
lock = root / 'Cargo.lock'
blocks = lock.read_text().split('\n[[package]]\n')
kept = [b for b in blocks if not re.search(r'^name = "(elements|electrum-client)"\n(.*\n)*source = "git\+', b, re.M)]
text = '\n[[package]]\n'.join(kept)
text = re.sub(r'\nsource = "git\+https://github.com/blockstream/rust-bitcoin[^\n]*', '', text)
lock.write_text(text)
PY
  # Two 2021 crates no longer compile with today's Rust; their later patch releases do.
  (cd "$work/electrs" && cargo update -q -p protobuf --precise 2.28.0 && cargo update -q -p rustc-serialize --precise 0.3.25) >&2
  say "building Esplora electrs ${ESPLORA_COMMIT:0:7} (about 20 min on 2 cores, once per machine)"
  build_electrs_into "$work/electrs" "$dir" "$work"
}

install_mempool_electrs() {
  local dir="$HOME_DIR/mempool-electrs-${MEMPOOL_ELECTRS_COMMIT:0:7}"
  if [ -x "$dir/bin/electrs" ]; then say "mempool electrs ${MEMPOOL_ELECTRS_COMMIT:0:7} cached"; return; fi
  need_electrs_build_tools
  local work="$HOME_DIR/build/mempool-electrs"
  fetch_source "mempool electrs" "$MEMPOOL_ELECTRS_REPO" "$MEMPOOL_ELECTRS_COMMIT" "${ELECTRUM_BENCH_MEMPOOL_ELECTRS_SRC:-}" "$work"
  # Its one git dependency is the electrum-discovery feature's electrum-client fork, which cargo
  # resolves even with the feature off: the patch and its lock entry go, crates.io's 0.8 stands in.
  # Its rust-toolchain file pins 1.80, which rustup would download: the installed toolchain builds it.
  python3 - "$work" <<'PY'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
toml = root / 'Cargo.toml'
text = toml.read_text()
patched = re.sub(r'\n\[patch\.crates-io\.electrum-client\]\n(?:[^\[\n][^\n]*\n?)*', '\n', text)
assert patched != text, 'Cargo.toml: no [patch.crates-io.electrum-client] section'
toml.write_text(patched)
lock = root / 'Cargo.lock'
blocks = lock.read_text().split('\n[[package]]\n')
kept = [b for b in blocks if not re.search(r'^name = "electrum-client"\n(.*\n)*source = "git\+', b, re.M)]
lock.write_text('\n[[package]]\n'.join(kept))
PY
  rm -f "$work/rust-toolchain" "$work/rust-toolchain.toml"
  say "building mempool electrs ${MEMPOOL_ELECTRS_COMMIT:0:7} (about 12 min on 2 cores, once per machine)"
  build_electrs_into "$work" "$dir" "$work"
}

install_fulcrum() {
  local dir="$HOME_DIR/fulcrum-${FULCRUM_COMMIT:0:7}"
  if [ -x "$dir/bin/Fulcrum" ]; then say "Fulcrum ${FULCRUM_COMMIT:0:7} cached"; return; fi
  # Debian's Qt 5 and RocksDB 7.8 (Fulcrum's own prebuilt RocksDB is not used).
  local pkgs=(qtbase5-dev qt5-qmake librocksdb-dev libbz2-dev zlib1g-dev libzmq3-dev libjemalloc-dev pkg-config g++ make)
  local missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  local work="$HOME_DIR/build/fulcrum"
  fetch_source "Fulcrum" "$FULCRUM_REPO" "$FULCRUM_COMMIT" "${ELECTRUM_BENCH_FULCRUM_SRC:-}" "$work"
  # The one RocksDB 7.8 incompatibility: ReadOptions::auto_readahead_size exists from RocksDB 8.x.
  python3 - "$work/src/Storage.cpp" <<'PY'
import sys, pathlib
p = pathlib.Path(sys.argv[1])
line = 'rdOpts.auto_readahead_size = false;'
text = p.read_text()
assert text.count(line) == 1, 'Storage.cpp: the auto_readahead_size line moved'
guarded = ('\n#if ROCKSDB_MAJOR > 8 || (ROCKSDB_MAJOR == 8 && ROCKSDB_MINOR >= 6)\n'
           + line + '\n#endif\n')
p.write_text(text.replace(line, guarded))
PY
  say "building Fulcrum ${FULCRUM_COMMIT:0:7} (about 12 min on 2 cores, once per machine)"
  (cd "$work" && qmake -makefile Fulcrum.pro && make -j"$(nproc)") >&2
  mkdir -p "$dir.partial/bin"
  cp "$work/Fulcrum" "$dir.partial/bin/Fulcrum"
  rm -rf "$dir"; mv "$dir.partial" "$dir"
  rm -rf "$work"
}

install_prometheus() {
  # Debian's package (2.42 on bookworm), not a download: the lab runs it with flags of its own
  # (src/lab/prometheus.ts), never the package's service.
  local bin="${ELECTRUM_BENCH_PROMETHEUS:-/usr/bin/prometheus}"
  if [ -x "$bin" ]; then say "Prometheus $("$bin" --version 2>&1 | head -1 | awk '{print $3}') installed"; return; fi
  say "installing Debian's prometheus package"
  apt_install --no-install-recommends prometheus
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(btcd electrumx electrs esplora mempool-electrs fulcrum prometheus)
for t in "${targets[@]}"; do
  case "$t" in
    btcd) install_btcd ;;
    electrumx) install_electrumx ;;
    electrs) install_electrs ;;
    esplora) install_esplora ;;
    mempool-electrs) install_mempool_electrs ;;
    fulcrum) install_fulcrum ;;
    electrumx@[0-9]*.[0-9]*.[0-9]*) install_electrumx "${t#electrumx@}" ;;
    bdk) install_bdk ;;
    electrum-wallet) install_electrum_wallet ;;
    prometheus) install_prometheus ;;
    *) say "unknown component: $t (expected btcd, electrumx, electrs, esplora, mempool-electrs, fulcrum, prometheus, electrumx@VERSION, bdk or electrum-wallet)"; exit 2 ;;
  esac
done
