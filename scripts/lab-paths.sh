# Sourced by the demos after `lab up`: sets DATASET, MANIFEST and WALLETS to the running lab's files.
# They are in datasets/, or under the lab's own ELECTRUM_BENCH_LAB_DIR (docs/lab.md), so they are
# read from the lab's status rather than assumed.
paths=$(npm run --silent lab -- status --json |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { const j = JSON.parse(s); console.log([j.datasetPath, j.manifestPath, j.walletsPath].join("\n")); })') ||
  { echo "the lab is not fully up after lab up: see npm run lab -- status" >&2; exit 1; }
{ read -r DATASET; read -r MANIFEST; read -r WALLETS; } <<<"$paths"
