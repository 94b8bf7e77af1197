/** jest globalSetup of the unit tier: the build its own processes start from (test/support/build.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from '../support/build';

export default function globalSetup(): void {
  build(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-unit-build-')));
}
