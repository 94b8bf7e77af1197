/** The tool's own identity, stored with every run: version and, in a checkout, the git commit. */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

let cached: { version: string; gitCommit: string | null } | undefined;

export function toolInfo(): { version: string; gitCommit: string | null } {
  if (cached) return cached;
  const root = path.resolve(__dirname, '..', '..');
  const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  let gitCommit: string | null = null;
  try {
    gitCommit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
  } catch {
    gitCommit = null; // not a checkout (an installed package)
  }
  cached = { version, gitCommit };
  return cached;
}
