/** The open files a wallet load needs: each held wallet's socket and each of the abuse's connections, refused past the limit before the run. */
import { openFilesNeeded, openFilesProblem } from '../../../src/cli/wallet-load';
import { parseAbuseSpec } from '../../../src/engine/abuse/spec';

const abuse = (text: string) => {
  const spec = parseAbuseSpec(text);
  return { option: `--abuse ${text}`, sockets: spec.profile.connections(spec.params) };
};
const limit = { soft: 4096, hard: 8192 };

it("counts an abuse's connections beside the held wallets", () => {
  const idle = abuse('idle-connections:connections=20000');
  expect(idle.sockets).toBe(20_000);
  expect(abuse('proof-storm:connections=300').sockets).toBe(300);
  expect(abuse('subscription-flood').sockets).toBe(1);
  expect(openFilesNeeded([{ option: '--hold 10', sockets: 10 }, idle])).toBeGreaterThan(20_010);
});

it('refuses an abuse whose connections pass the limit, naming it, though the held wallets alone fit', () => {
  const held = { option: '--hold 10', sockets: 10 };
  expect(openFilesProblem([held], limit)).toBeUndefined();
  const problem = openFilesProblem([held, abuse('idle-connections:connections=20000')], limit);
  expect(problem).toContain('--abuse idle-connections:connections=20000');
  expect(problem).toContain('limit that applies is 4096 (hard 8192)');
  expect(openFilesProblem([held, abuse('idle-connections:connections=100')], limit)).toBeUndefined();
});

it('names only what holds sockets', () => {
  const problem = openFilesProblem([{ option: '--hold 0', sockets: 0 }, abuse('idle-connections:connections=5000')], limit)!;
  expect(problem).not.toContain('--hold');
  expect(problem.startsWith('--abuse idle-connections:connections=5000 needs about')).toBe(true);
});

it('says nothing where the limit is unknown', () => {
  expect(openFilesProblem([abuse('idle-connections:connections=100000')], null)).toBeUndefined();
});
