/**
 * Data flows one way (dataset → engine → store → report): each directory of src/ may import only
 * the rooms below it, no stage imports a sibling stage, nothing imports the CLI, and the lab is a
 * product of its own that only the CLI's `lab` command reaches. Read from the sources, so a new
 * import across a line fails here with the file that made it.
 */
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '../../src');

/** What each room of src/ may import besides itself. */
const MAY_IMPORT: Record<string, string[]> = {
  // Vocabulary, the bottom of the tree: core imports nothing. The server profiles (and the
  // `--server` targets written with them) name error categories with ElectrumError.
  core: [],
  servers: ['core', 'electrum'],
  electrum: ['core'],
  esplora: ['core', 'electrum'],
  node: ['core'],
  store: ['core'],
  // Components the stages share.
  transports: ['core', 'servers', 'electrum', 'esplora'],
  resources: ['core', 'electrum', 'store'],
  engine: ['core', 'servers', 'electrum', 'transports', 'store'],
  // Stages: each reads the vocabulary, the components and the store, never another stage.
  dataset: ['core', 'servers', 'electrum', 'node', 'transports'],
  bench: ['core', 'servers', 'electrum', 'esplora', 'transports', 'engine', 'store', 'resources'],
  load: ['core', 'servers', 'electrum', 'transports', 'engine', 'store'],
  wallet: ['core', 'servers', 'electrum', 'transports', 'engine', 'store'],
  indexing: ['core', 'engine', 'store', 'resources'],
  report: ['core', 'servers', 'store'],
  // Deployment: the Kubernetes objects of a coordinated test, and their pods run locally.
  cluster: ['core'],
  // The lab runs real servers with the toolkit; nothing below the CLI imports it.
  lab: ['core', 'servers', 'electrum', 'esplora', 'node', 'transports', 'store', 'dataset', 'engine', 'bench', 'load', 'wallet', 'indexing', 'resources', 'report'],
  // The CLI parses, validates and wires every room.
  cli: ['core', 'servers', 'electrum', 'esplora', 'node', 'transports', 'store', 'dataset', 'engine', 'bench', 'load', 'wallet', 'indexing', 'resources', 'report', 'lab', 'cluster'],
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

const roomOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0];

/** The imports of `file` (its text given) that leave its room for one it may not import. */
function crossingsOf(file: string, text: string): string[] {
  const room = roomOf(file);
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
    const target = path.resolve(path.dirname(file), m[1]);
    if (!target.startsWith(SRC + path.sep)) continue;
    const to = roomOf(target);
    if (to !== room && !(MAY_IMPORT[room] ?? []).includes(to)) found.push(`${path.relative(SRC, file)} imports ${m[1]} (${room} → ${to})`);
  }
  return found;
}

const crossings = (): string[] => sources(SRC).flatMap((file) => crossingsOf(file, fs.readFileSync(file, 'utf8')));

test('every room of src/ is known to this test', () => {
  const rooms = fs.readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  expect(rooms.filter((r) => !(r in MAY_IMPORT))).toEqual([]);
});

test('no import crosses a line the data flow does not', () => {
  expect(crossings()).toEqual([]);
});

test('the check sees a crossing when there is one', () => {
  const report = path.join(SRC, 'report', 'wallet-tables.ts');
  expect(crossingsOf(report, "import { heldReconnectsText } from '../wallet/rehold';")).toEqual(['report/wallet-tables.ts imports ../wallet/rehold (report → wallet)']);
  expect(crossingsOf(report, "import { x } from './table';\nimport type { y } from '../store/read';")).toEqual([]);
  expect(crossingsOf(path.join(SRC, 'load', 'merge.ts'), "const cli = await import('../cli/load');")).toEqual(['load/merge.ts imports ../cli/load (load → cli)']);
});
