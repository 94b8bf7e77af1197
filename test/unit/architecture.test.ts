/**
 * Data flows one way (dataset → engine → store → report): each directory of src/ may import only
 * the rooms below it, no stage imports a sibling stage, nothing imports the CLI, and the lab is a
 * product of its own that only the CLI's `lab` command reaches; and no file of src/ reaches itself
 * through its imports. Read from the sources, so a new import across a line, or one that closes a
 * cycle, fails here with the files that made it.
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
  // Where a server stops, probed over the wire: its own connections, no engine to pace them.
  limits: ['core', 'electrum'],
  // A/B verdicts, from what the store holds: below the run session and the report, which only renders them.
  verdicts: ['core', 'store'],
  report: ['core', 'servers', 'store', 'verdicts'],
  // Deployment: the Kubernetes objects of a coordinated test, and their pods run locally.
  cluster: ['core'],
  // A run's lifecycle around the engine, for every run kind: what each stage runs, wired once.
  runs: ['core', 'servers', 'electrum', 'esplora', 'node', 'transports', 'store', 'dataset', 'engine', 'bench', 'load', 'wallet', 'indexing', 'limits', 'resources', 'verdicts'],
  // The lab runs real servers with the toolkit; nothing below the CLI imports it.
  lab: ['core', 'servers', 'electrum', 'esplora', 'node', 'transports', 'store', 'dataset', 'engine', 'bench', 'load', 'wallet', 'indexing', 'limits', 'resources', 'report', 'runs'],
  // The CLI parses, validates and wires every room.
  cli: ['core', 'servers', 'electrum', 'esplora', 'node', 'transports', 'store', 'dataset', 'engine', 'bench', 'load', 'wallet', 'indexing', 'limits', 'resources', 'verdicts', 'report', 'lab', 'cluster', 'runs'],
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

const roomOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0];

/**
 * The relative specifiers `text` imports, of every form: `import … from`, `import type … from`,
 * `export … from`, a bare `import './x'` and a dynamic `import('./x')`. A type-only import is
 * still a dependency of meaning, so it counts.
 */
const relativeImports = (text: string): string[] => [...text.matchAll(/(?:\bfrom|\bimport\(?)\s*'(\.[^']+)'/g)].map((m) => m[1]);

/** The imports of `file` (its text given) that leave its room for one it may not import. */
function crossingsOf(file: string, text: string): string[] {
  const room = roomOf(file);
  const found: string[] = [];
  for (const spec of relativeImports(text)) {
    const target = path.resolve(path.dirname(file), spec);
    if (!target.startsWith(SRC + path.sep)) continue;
    const to = roomOf(target);
    if (to !== room && !(MAY_IMPORT[room] ?? []).includes(to)) found.push(`${path.relative(SRC, file)} imports ${spec} (${room} → ${to})`);
  }
  return found;
}

const crossings = (): string[] => sources(SRC).flatMap((file) => crossingsOf(file, fs.readFileSync(file, 'utf8')));

/** The file a relative specifier names among `files`, as TypeScript resolves it: `x.ts`, `x.tsx` or `x/index.ts`. */
function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((f) => files.has(f));
}

/**
 * The import cycles among `texts` (file → its text), each as the path that closes it,
 * `a.ts → b.ts → a.ts`, relative to src/: one per import that leads back into a file still being
 * followed, found in a depth-first walk in name order, so the list is the same on every run.
 */
function cyclesIn(texts: ReadonlyMap<string, string>): string[] {
  const files = new Set(texts.keys());
  const importsOf = (file: string): string[] =>
    [...new Set(relativeImports(texts.get(file)!).flatMap((spec) => resolveImport(file, spec, files) ?? []))].sort();
  const done = new Set<string>();
  const followed: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    followed.push(file);
    for (const next of importsOf(file)) {
      const at = followed.indexOf(next);
      if (at >= 0) cycles.push([...followed.slice(at), next].map((f) => path.relative(SRC, f)).join(' → '));
      else if (!done.has(next)) visit(next);
    }
    followed.pop();
    done.add(file);
  };
  for (const file of [...files].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

const cycles = (): string[] => cyclesIn(new Map(sources(SRC).map((file) => [file, fs.readFileSync(file, 'utf8')])));

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

test('no file of src/ reaches itself through its imports', () => {
  expect(cycles()).toEqual([]);
});

test('the check sees a cycle when there is one', () => {
  const at = (name: string): string => path.join(SRC, name);
  const texts = (files: Record<string, string>): Map<string, string> => new Map(Object.entries(files).map(([name, text]) => [at(name), text]));
  expect(cyclesIn(texts({
    'bench/a.ts': "import { b } from './b';",
    'bench/b.ts': "import type { C } from '../core/c';",
    'core/c.ts': "export { a } from '../bench/a';",
  }))).toEqual(['bench/a.ts → bench/b.ts → core/c.ts → bench/a.ts']);
  expect(cyclesIn(texts({
    'lab/lab.ts': "const g = await import('./generator');",
    'lab/generator/index.ts': "import '../lab';",
  }))).toEqual(['lab/generator/index.ts → lab/lab.ts → lab/generator/index.ts']);
  expect(cyclesIn(texts({
    'bench/a.ts': "import { b } from './b';\nimport { c } from '../core/c';",
    'bench/b.ts': "import { c } from '../core/c';",
    'core/c.ts': "import fs from 'node:fs';",
  }))).toEqual([]);
});

/**
 * What only the run session does (src/runs/): making or finishing a run's record, the status
 * rule, a merge, a run's statistics, a database made for a run. The CLI parses, validates, plans,
 * calls the session and prints.
 */
const LIFECYCLE = /\.createRun\(|\.finishRun\(|\bstatusOf\(|\bworstStatus\(|\bmerge(?:Request|Wallet)?Shards\(|\bcomputeStatistics\(|\bfileAboutToBeCreated\(|\.addInterval\(|\bstartSampling\(/g;

function lifecycleIn(file: string, text: string): string[] {
  return [...text.matchAll(LIFECYCLE)].map((m) => `${path.relative(SRC, file)}: ${m[0]}`);
}

test('src/cli/ holds no run lifecycle: no record made or finished, no status rule, no merge, no statistics', () => {
  expect(sources(path.join(SRC, 'cli')).flatMap((file) => lifecycleIn(file, fs.readFileSync(file, 'utf8')))).toEqual([]);
});

test('the check sees a run lifecycle in the CLI when there is one', () => {
  const cli = path.join(SRC, 'cli', 'load.ts');
  expect(lifecycleIn(cli, 'const { runId } = store.createRun(run, servers);\nstore.finishRun(runId, status);')).toEqual(['cli/load.ts: .createRun(', 'cli/load.ts: .finishRun(']);
  expect(lifecycleIn(cli, "const status = statusOf(ending);\nconst m = mergeShards(inputs, db);")).toEqual(['cli/load.ts: statusOf(', 'cli/load.ts: mergeShards(']);
});
