#!/usr/bin/env bash
# "Did ElectrumX 2.0 regress against 1.20?" on the embedded lab: ElectrumX 1.20.0 started beside the
# lab's 2.0.0 on the same chain, both measured interleaved in one A/B run (1.20.0 the baseline), then
# loaded in turns of 3 s at 50 requests/s (30 s each, about a minute), and the report with a verdict
# per method and per latency percentile under load (change, 95 % interval, test, n, p).
set -euo pipefail
cd "$(dirname "$0")/.."

DB=results/demo-versions.sqlite
REPORT=results/report-demo-versions

[ -d node_modules ] || npm ci --no-audit --no-fund
npm run --silent lab -- up --with electrumx@1.20.0
source scripts/lab-paths.sh # DATASET, MANIFEST, WALLETS
rm -f "$DB" "$DB-wal" "$DB-shm"
# The load's sends wake on time at real-time priority where this user may have it (docs/load.md).
realtime=()
if chrt --fifo 1 true 2>/dev/null; then realtime=(--realtime)
else echo "the load runs at ordinary priority (real-time scheduling needs root or CAP_SYS_NICE): on a busy machine more of its sends go out late"; fi
npm run --silent bench -- --server electrumx-1.20.0 --server electrumx --baseline electrumx-1.20.0 \
  --dataset "$DATASET" --passes 11 --warmup 1 --verify --no-progress --db "$DB"
npm run --silent load -- --server electrumx-1.20.0 --server electrumx --baseline electrumx-1.20.0 \
  --interleave 3s --rate 50 --duration 30s --dataset "$DATASET" --no-progress --db "$DB" "${realtime[@]}"
npm run --silent report -- --db "$DB" --out "$REPORT" --force

cat <<TXT

Versions demo finished.
  results database: $DB
  report:           $REPORT/index.html  (the "A/B verdicts against electrumx-1.20.0" tables, per method and
                    under load, turn by turn; summary.md too)
ElectrumX 1.20.0 still runs beside the lab (npm run lab -- status); a plain "npm run lab -- up" stops it.
TXT
