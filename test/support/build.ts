/**
 * src/ (and test/support/) as plain JavaScript, for the unit tier's commands that must be processes
 * of their own: node starts a built command in about half the time it takes through tsx's loader,
 * which per start resolves and transforms every module again (a SIGKILL test starts 21 of them).
 * Built once per tier by its global setup with tsx's own transformer (esbuild, the one tsx runs
 * src/ through), so the code run is the code tsx would run; without a build (a single file run
 * outside the tier's setup) a command starts through tsx as `npm run` does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(__dirname, '..', '..');
/** Where the tier's global setup says the build is. */
const BUILD_VAR = 'ELECTRUM_BENCH_TEST_BUILD';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Builds into `dir`: `src/` and `test/support/` as CommonJS beside the files they read (page.html), package.json, and node_modules linked. */
export function build(dir: string): void {
  const tsx = path.dirname(require.resolve('tsx/package.json', { paths: [ROOT] }));
  const esbuild = require(require.resolve('esbuild', { paths: [tsx] })) as typeof import('esbuild');
  const files = ['src', path.join('test', 'support')].flatMap((d) => filesUnder(path.join(ROOT, d)));
  esbuild.buildSync({
    entryPoints: files.filter((f) => f.endsWith('.ts')),
    outdir: dir,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    // A dynamic import() left as it is would go through Node's ESM resolver, which takes no path
    // without its extension (src/cli's `await import('../lab/lab')`): as require(), as tsx runs it.
    supported: { 'dynamic-import': false },
    logLevel: 'error',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    const to = path.join(dir, path.relative(ROOT, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  process.env[BUILD_VAR] = dir;
}

/** How node runs `file` (a path under the repository, e.g. src/cli/bench.ts): the module to run, built or as it is, and the flags that run it. */
export function runnable(file: string): { flags: string[]; module: string } {
  const built = process.env[BUILD_VAR];
  if (built) return { flags: [], module: path.join(built, file.replace(/\.ts$/, '.js')) };
  const loader = path.join(path.dirname(require.resolve('tsx/package.json', { paths: [ROOT] })), 'dist', 'loader.mjs');
  return { flags: ['--import', pathToFileURL(loader).href], module: path.join(ROOT, file) };
}
