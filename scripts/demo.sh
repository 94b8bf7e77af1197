#!/usr/bin/env bash
# The whole pipeline on the embedded regtest lab: install, lab up (fresh chain + ground-truth
# dataset and wallets), bench every lab server (addresses, over TCP and then over WebSocket where
# served, then whole wallets), export the report, and say where everything is.
set -euo pipefail
cd "$(dirname "$0")/.."

DB=results/demo.sqlite
REPORT=results/report-demo

[ -d node_modules ] || npm ci --no-audit --no-fund
npm run --silent lab -- up
source scripts/lab-paths.sh # DATASET, MANIFEST, WALLETS
rm -f "$DB" "$DB-wal" "$DB-shm"
# --websocket: ElectrumX and Fulcrum over ws:// and wss:// too, in the same run, each its own row in the report.
npm run --silent bench -- --lab --websocket --dataset "$DATASET" --passes 5 --warmup 1 --verify --db "$DB"
# Whole wallets too: each lab wallet synced as Electrum syncs it, balances verified.
npm run --silent bench -- --lab --workload electrum --wallets "$WALLETS" --passes 3 --warmup 1 --verify --no-progress --db "$DB"
npm run --silent report -- --db "$DB" --out "$REPORT" --force

cat <<TXT

Demo finished.
  results database: $DB
  report:           $REPORT/index.html  (also summary.md, medians.csv, one SVG + PNG per chart)
  dataset:          $DATASET (+ $MANIFEST)
  wallets:          $WALLETS
The lab is still running (npm run lab -- status); stop it with: npm run lab -- down
TXT
