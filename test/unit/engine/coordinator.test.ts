/** The coordinated test's wire, on loopback: registration, one start for all, results, and every way it fails. */
import { Coordinator, ShardLink, StepStopped, type TestTag } from '../../../src/engine/coordinator';
import { isUserError } from '../../../src/core/user-error';
import { meetingTag } from '../../../src/runs/test-identity';

const HOST = '127.0.0.1';
const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

async function coordinator(count: number, test: string | TestTag = 'T'): Promise<Coordinator> {
  const c = await Coordinator.listen({ host: HOST, port: 0 }, { index: 1, count }, typeof test === 'string' ? { id: test } : test);
  open.push(c);
  return c;
}

async function shard(c: Coordinator, index: number, count: number, test: string | TestTag = 'T', timeoutMs = 5000): Promise<ShardLink> {
  const link = await ShardLink.connect({ host: HOST, port: c.port }, { index, count }, typeof test === 'string' ? { id: test } : test, timeoutMs);
  open.push(link);
  return link;
}

test('three shards register, get one start per server, report their starts and hand over their databases', async () => {
  const c = await coordinator(3);
  const [s2, s3] = await Promise.all([shard(c, 2, 3), shard(c, 3, 3)]);
  await c.awaitShards(5000);
  const starts = await Promise.all([c.rendezvous('electrumx'), s2.rendezvous('electrumx'), s3.rendezvous('electrumx')]);
  // One clock here: the offsets measured are near zero, so the three starts are one instant.
  expect(Math.max(...starts) - Math.min(...starts)).toBeLessThan(5);
  expect(starts[0]).toBeGreaterThan(Date.now() - 1000);
  c.started('electrumx', starts[0]);
  s2.started('electrumx', starts[0] + 1);
  s3.started('electrumx', starts[0] + 2);
  await Promise.all([s2.sendResult(Buffer.from('db of 2'), 5000), s3.sendResult(Buffer.from([0, 255, 10, 13]), 5000)]);
  const results = await c.results(5000);
  expect(results.get(2)!.toString()).toBe('db of 2');
  expect([...results.get(3)!]).toEqual([0, 255, 10, 13]);
  const skew = c.startSkew().electrumx;
  expect(skew.shards).toBe(3);
  expect(skew.skewMs).toBeCloseTo(2, 0);
});

test('a shard that never registers fails the test within the deadline, naming it', async () => {
  const c = await coordinator(3);
  await shard(c, 2, 3);
  const t0 = Date.now();
  const err = await c.awaitShards(400).catch((e: Error) => e);
  expect(isUserError(err)).toBe(true);
  expect((err as Error).message).toMatch(/^--coordinator: shard 3\/3 did not register within 0.4 s \(--ready-timeout\); nothing was run$/);
  expect(Date.now() - t0).toBeLessThan(3000);
});

test('a shard of another test, or a second shard 2, is refused and calls the test off', async () => {
  const c = await coordinator(2);
  const failures: string[] = [];
  c.onFailure((r) => failures.push(r));
  const refused = await shard(c, 2, 2, 'other test').catch((e: Error) => e);
  expect((refused as Error).message).toMatch(/refused shard 2\/2: shard 2\/2 runs a different test/);
  expect(failures).toHaveLength(1);
  await expect(c.awaitShards(1000)).rejects.toThrow(/different test/);

  const c2 = await coordinator(2);
  await shard(c2, 2, 2);
  await expect(shard(c2, 2, 2)).rejects.toThrow(/already registered/);
  const c3 = await coordinator(2);
  await expect(shard(c3, 3, 2)).rejects.toThrow(/not one of shards 2\.\.2 of 2/);
});

test('a shard started with other options is refused naming the option and both values, in the words the merge uses', async () => {
  const options = (rate: number) => ({ server: ['e=electrumx@127.0.0.1:50001'], rate, duration: '3s', mix: 'balance=40,history=40,utxos=20', db: `shard-${rate}.sqlite`, shard: '1/2', $0: 'load', _: [] });
  const c = await coordinator(2, meetingTag(options(20), { index: 1, count: 2 }));
  const failures: string[] = [];
  c.onFailure((r) => failures.push(r));
  const refused = await shard(c, 2, 2, meetingTag(options(30), { index: 2, count: 2 })).catch((e: Error) => e);
  const words = 'shard 2/2 runs --rate 30, the coordinator (shard 1/2) --rate 20: shards of different tests';
  expect((refused as Error).message).toBe(`--coordinator 127.0.0.1:${c.port} refused shard 2/2: ${words}`);
  expect(failures).toEqual([`--coordinator: ${words}`]);
  // What a shard may set for itself (its --db, its --shard) is no part of the test.
  const c2 = await coordinator(2, meetingTag(options(20), { index: 1, count: 2 }));
  await shard(c2, 2, 2, meetingTag({ ...options(20), db: 'elsewhere.sqlite', shard: '2/2' }, { index: 2, count: 2 }));
  await c2.awaitShards(5000);
});

test('a shard that goes away mid-test calls it off at the coordinator, and the coordinator going away calls it off at the shards', async () => {
  const c = await coordinator(3);
  const [s2, s3] = await Promise.all([shard(c, 2, 3), shard(c, 3, 3)]);
  await c.awaitShards(5000);
  const offAtCoordinator = new Promise<string>((resolve) => c.onFailure(resolve));
  const offAtShard3 = new Promise<string>((resolve) => s3.onAbort(resolve));
  s2.close();
  expect(await offAtCoordinator).toBe('shard 2/3 went away (its connection closed) before sending its results');
  await expect(c.results(5000)).rejects.toThrow(/shard 2\/3 went away/);
  c.abort('shard 2/3 went away');
  expect(await offAtShard3).toBe('shard 2/3 went away');

  const c2 = await coordinator(2);
  const s = await shard(c2, 2, 2);
  const gone = new Promise<string>((resolve) => s.onAbort(resolve));
  c2.close();
  expect(await gone).toMatch(/the coordinator went away/);
});

test('a shard that failed its own checks says why, and the coordinator fails with that reason', async () => {
  const c = await coordinator(2);
  const s = await shard(c, 2, 2);
  s.failed('server electrumx (tcp://127.0.0.1:1): connection refused');
  s.close();
  await expect(c.awaitShards(2000).then(() => c.rendezvous('electrumx'))).rejects.toThrow('shard 2/2 failed: server electrumx (tcp://127.0.0.1:1): connection refused');
});

test('a shard waits for a coordinator that is not up yet, then gives up at its deadline with one line', async () => {
  const c = await coordinator(2);
  const port = c.port;
  c.close();
  const t0 = Date.now();
  const err = await ShardLink.connect({ host: HOST, port }, { index: 2, count: 2 }, { id: 'T' }, 700).catch((e: Error) => e);
  expect(isUserError(err)).toBe(true);
  expect((err as Error).message).toMatch(/cannot register shard 2\/2 within 0.7 s \(--ready-timeout\): ECONNREFUSED/);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
});

test("the coordinator's stop reaches every shard (each then ends its part and sends it)", async () => {
  const c = await coordinator(3);
  const links = await Promise.all([shard(c, 2, 3), shard(c, 3, 3)]);
  await c.awaitShards(5000);
  const stops = links.map((l) => new Promise<void>((resolve) => l.onStop(resolve)));
  c.stopAll();
  await Promise.all(stops);
  await links[0].sendResult(Buffer.from('part'), 5000);
});

test('stray lines on the port neither crash the coordinator nor keep it open', async () => {
  const net = await import('node:net');
  const c = await coordinator(2);
  const stray = net.connect({ host: HOST, port: c.port });
  await new Promise((r) => stray.once('connect', r));
  const closed = new Promise((r) => stray.once('close', r));
  stray.write('null\n{"type":"hello"}\n{"type":7}\nGET / HTTP/1.1\n');
  const s = await shard(c, 2, 2);
  await c.awaitShards(2000);
  expect(await Promise.all([c.rendezvous('x'), s.rendezvous('x')])).toHaveLength(2);
  c.close();
  await closed; // the stranger's connection is closed with the rest
});

test('a call-off that comes before the shard listens for it is kept, not lost', async () => {
  const c = await coordinator(2);
  const s = await shard(c, 2, 2);
  c.abort('shard 1/2 failed: no server');
  await new Promise((r) => setTimeout(r, 50));
  expect(await new Promise<string>((resolve) => s.onAbort(resolve))).toBe('shard 1/2 failed: no server');
  const err = await s.rendezvous('x').catch((e: Error) => e);
  expect(isUserError(err)).toBe(true);
  expect((err as Error).message).toMatch(/no start for x: shard 1\/2 failed: no server/);
});

test('steps the shards take together: the coordinator hears what each tells once all are at a step, and its news reaches each, even one that asks late', async () => {
  const c = await coordinator(3);
  const [s2, s3] = await Promise.all([shard(c, 2, 3), shard(c, 3, 3)]);
  await c.awaitShards(5000);
  let gathered = false;
  const gathering = c.gather('block 1 judged', 5000).then((told) => ((gathered = true), told));
  s2.arrive('block 1 judged', { ok: 20 });
  await new Promise((r) => setTimeout(r, 100));
  // Not everyone is at it yet.
  expect(gathered).toBe(false);
  s3.arrive('block 1 judged', { ok: 19 });
  expect(await gathering).toEqual(new Map([[2, { ok: 20 }], [3, { ok: 19 }]]));
  c.tell('block 2 mined', { height: 485 });
  expect(await s2.hear('block 2 mined', 5000)).toEqual({ height: 485 });
  await new Promise((r) => setTimeout(r, 100));
  expect(await s3.hear('block 2 mined', 5000)).toEqual({ height: 485 });
});

test('a wait for a step ends at a stop on either side, at a call-off, and at its deadline, each in its own way', async () => {
  const c = await coordinator(2);
  const s = await shard(c, 2, 2);
  await c.awaitShards(5000);
  // The coordinator stopped (Ctrl-C) while waiting for the shards.
  const waiting = c.gather('ready', 60_000);
  c.release();
  await expect(waiting).rejects.toBeInstanceOf(StepStopped);
  // The coordinator's stop reaches a shard waiting for news.
  const hearing = s.hear('mined', 60_000);
  c.stopAll();
  await expect(hearing).rejects.toBeInstanceOf(StepStopped);

  const c2 = await coordinator(2);
  const s2 = await shard(c2, 2, 2);
  const offWhileHearing = s2.hear('mined', 60_000);
  c2.abort('shard 1/2 failed: the miner is gone');
  await expect(offWhileHearing).rejects.toThrow('--coordinator: shard 1/2 failed: the miner is gone');

  const c3 = await coordinator(2);
  const s3 = await shard(c3, 2, 2);
  await c3.awaitShards(5000);
  await expect(s3.hear('mined', 300)).rejects.toThrow(/^--coordinator: no word of mined within 0.3 s$/);
  await expect(c3.gather('ready', 300)).rejects.toThrow(/^--coordinator: shard 2\/2 did not reach ready within 0.3 s$/);
});
