/**
 * Report rendering cost against the number of points: 1k, 10k and 100k per-address medians
 * (synthetic, two servers, straight into the model), one chart built, drawn to SVG by Vega and
 * rasterised to PNG by resvg. Prints each stage's time per point and the ratio to the 1k run:
 * a ratio near 1 means the cost stays linear in the number of points.
 * Usage: npx tsx bench/report-render.ts [--sizes 1000,10000,100000]
 */
import { CHARTS } from '../src/report/charts/definitions';
import { chartSpec } from '../src/report/charts/scaling-spec';
import { renderSvg } from '../src/report/render';
import { svgToPng } from '../src/report/export/png';
import type { MedianPoint, ReportModel, ReportServer } from '../src/report/model';
import { seededRandom } from '../src/core/random';

function syntheticModel(points: number): ReportModel {
  const rand = seededRandom(`report-render:${points}`);
  const labels = ['server-a', 'server-b'];
  const list: MedianPoint[] = [];
  for (let i = 0; i < points; i++) {
    const server = labels[i % 2];
    const txCount = Math.floor(10 ** (rand() * 4));
    list.push({
      server,
      method: 'history',
      addressIdx: i >> 1,
      address: null,
      scripthash: (i >> 1).toString(16).padStart(64, '0'),
      type: 'p2wpkh',
      txCount,
      utxoCount: Math.floor(txCount * rand()),
      txBytes: null,
      medianMs: 0.5 + txCount * (server === 'server-a' ? 0.01 : 0.2) * (0.8 + 0.4 * rand()),
      nOk: 9,
      nError: 0,
    });
  }
  // The chart reads only the servers' labels; run and record metadata are for the tables.
  const servers = labels.map((label) => ({ label }) as ReportServer);
  return { dbPath: ':synthetic:', runs: [], servers, points: list, errors: [], summaries: [] };
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function timeRender(points: number): Promise<{ spec: number; svg: number; png: number }> {
  const model = syntheticModel(points);
  const def = CHARTS.find((c) => c.id === 'history-vs-txcount')!;
  let t = process.hrtime.bigint();
  const spec = chartSpec(model, def, { logX: true, logY: false, facet: false, excludeServers: [] });
  const specMs = ms(t);
  t = process.hrtime.bigint();
  const svg = await renderSvg(spec);
  const svgMs = ms(t);
  t = process.hrtime.bigint();
  await svgToPng(svg);
  return { spec: specMs, svg: svgMs, png: ms(t) };
}

async function main() {
  const arg = process.argv.indexOf('--sizes');
  const sizes = arg > 0 ? process.argv[arg + 1].split(',').map(Number) : [1000, 10_000, 100_000];
  await timeRender(sizes[0]); // warm-up: module loading and JIT, not rendering
  const first: number[] = [];
  let prev: { n: number; total: number } | null = null;
  // µs/point includes a fixed cost (axes, legend, PNG canvas); the marginal column is the cost of
  // each added point between two sizes, the figure that must stay flat for linear scaling.
  console.log('points   spec ms    svg ms    png ms  total ms  µs/point  ratio to first  marginal µs/point');
  for (const n of sizes) {
    const t = await timeRender(n);
    const total = t.spec + t.svg + t.png;
    const perPoint = (total * 1000) / n;
    if (first.length === 0) first.push(perPoint);
    const cols = [t.spec, t.svg, t.png, total].map((v) => v.toFixed(0).padStart(9));
    const marginal = prev ? (((total - prev.total) * 1000) / (n - prev.n)).toFixed(1) : '–';
    prev = { n, total };
    console.log(`${String(n).padStart(6)} ${cols.join(' ')} ${perPoint.toFixed(1).padStart(9)} ${(perPoint / first[0]).toFixed(2).padStart(15)} ${marginal.padStart(18)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
