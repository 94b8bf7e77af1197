/**
 * ElectrumX's reply hold named only where a run's latencies contain it: ElectrumX from 1.18.0 over
 * a raw socket (TCP or TLS, in every spelling stored), never over WebSocket, never another server.
 */
import { holdsReplies, replyHoldLine, replyHoldOf, replyHolds, storedIdentity } from '../../../src/servers/reply-hold';
import { serversTable } from '../../../src/report/tables';
import type { ReportModel } from '../../../src/report/model';

describe('which software holds its replies', () => {
  it.each([
    ['ElectrumX 1.16.0', false],
    ['ElectrumX 1.17.0', false],
    ['ElectrumX 1.18.0', true],
    ['ElectrumX 1.20.0', true],
    ['ElectrumX 2.0.0', true],
    ['ElectrumX 10.0', true],
    ['electrumx 1.18.1', true],
    ['Fulcrum 2.1.0', false],
    ['electrs/0.10.9', false],
    ['ElectrumX', false],
    ['', false],
  ])('%j: %s', (software, holds) => expect(holdsReplies(software)).toBe(holds));

  it('a server never identified holds nothing known', () => expect(holdsReplies(null)).toBe(false));
});

describe('the note', () => {
  const at = (software: string | null, url: string) => replyHoldOf({ name: 'x', software, url });

  it.each(['electrum://127.0.0.1:50001', 'electrums://127.0.0.1:50002', 'tcp://127.0.0.1:50001', 'ssl://[::1]:50002'])('over %s', (url) => {
    const h = at('ElectrumX 1.18.0', url)!;
    expect(h).toMatchObject({ server: 'x', software: 'ElectrumX 1.18.0', url });
    expect(h.note).toContain('up to 1 s');
    expect(h.note).toContain('ws://');
    expect(h.note).toContain('PaddedRSTransport.WAIT_FOR_BUFFER_GROWTH_SECONDS');
  });

  it.each(['ws://127.0.0.1:50003', 'wss://127.0.0.1:50004'])('none over %s (WebSocket sessions are not padded)', (url) => {
    expect(at('ElectrumX 2.0.0', url)).toBeNull();
  });

  it('none for an ElectrumX before 1.18, nor for other servers', () => {
    expect(at('ElectrumX 1.16.0', 'electrum://h:1')).toBeNull();
    expect(at('Fulcrum 2.1.0', 'electrum://h:1')).toBeNull();
    expect(at(null, 'electrum://h:1')).toBeNull();
  });

  it('one line per server that has it, named', () => {
    const held = replyHolds([
      { name: 'new', software: 'ElectrumX 2.0.0', url: 'electrum://h:1' },
      { name: 'new-ws', software: 'ElectrumX 2.0.0', url: 'ws://h:2' },
      { name: 'old', software: 'ElectrumX 1.16.0', url: 'electrum://h:3' },
      { name: 'fulcrum', software: 'Fulcrum 2.1.0', url: 'electrum://h:4' },
    ]);
    expect(held.map((h) => h.server)).toEqual(['new']);
    expect(replyHoldLine(held[0])).toMatch(/^new: ElectrumX 2\.0\.0 over TCP\/TLS /);
  });

  it("the report's servers table says it from the stored software and URL, and only then", () => {
    const server = (label: string, software: string, url: string) =>
      ({ label, run: { id: 1 }, record: { name: label, profile: 'electrumx', software, protocol: '1.4', url } }) as unknown as ReportModel['servers'][number];
    const model = (servers: ReportModel['servers']) => ({ servers }) as unknown as ReportModel;
    const padded = serversTable(model([server('tcp', 'ElectrumX 2.0.0', 'electrum://h:1'), server('ws', 'ElectrumX 2.0.0', 'ws://h:2')]));
    expect(padded.note?.split('\n')).toEqual([replyHoldLine(replyHoldOf({ name: 'tcp', software: 'ElectrumX 2.0.0', url: 'electrum://h:1' })!)]);
    expect(serversTable(model([server('ws', 'ElectrumX 2.0.0', 'ws://h:2')])).note).toBeUndefined();
  });
});

describe('what the handshake saw decides, whatever the version says', () => {
  const seen = (software: string | null, padded: boolean, smallReplyMs: number | null, url = 'electrum://h:1') =>
    replyHoldOf({ name: 'x', software, url, replies: { padded, smallReplyMs } });

  it('padded and held: the note says it was seen, with the time, and not "unless"', () => {
    const h = seen('ElectrumX 2.0.0', true, 1003.4)!;
    expect(h.note).toContain('seen here');
    expect(h.note).toContain('1003 ms');
    expect(h.note).not.toContain('unless');
    expect(h.note).toContain('ws://');
  });

  it('padded but answered at once (the hold set to 0, as the lab runs it): no note, even for ElectrumX 2.0', () => {
    expect(seen('ElectrumX 2.0.0', true, 0.4)).toBeNull();
  });

  it('unpadded: no note, even for a version that would pad', () => {
    expect(seen('ElectrumX 2.0.0', false, null)).toBeNull();
  });

  it('a server that does not call itself ElectrumX but pads and holds gets the note', () => {
    expect(seen('SomeServer 0.1', true, 990)?.note).toMatch(/^SomeServer 0\.1 over TCP\/TLS pads .* seen here/);
  });

  it('padded, the hold not measured: the note says it may be in the figures', () => {
    expect(seen('ElectrumX 2.0.0', true, null)?.note).toContain('may contain that hold');
  });

  it('never over WebSocket', () => {
    expect(seen('ElectrumX 2.0.0', true, 1000, 'ws://h:2')).toBeNull();
  });

  it("a stored server's setup JSON carries it; runs from before it go by the version", () => {
    const row = { name: 'x', software: 'ElectrumX 2.0.0', url: 'electrum://h:1' };
    expect(storedIdentity({ ...row, setup_json: JSON.stringify({ polling: 'p', replies: { padded: true, smallReplyMs: 2 } }) }).replies).toEqual({ padded: true, smallReplyMs: 2 });
    expect(replyHoldOf(storedIdentity({ ...row, setup_json: JSON.stringify({ replies: { padded: true, smallReplyMs: 2 } }) }))).toBeNull();
    expect(replyHoldOf(storedIdentity({ ...row, setup_json: null }))?.note).toContain('unless');
    expect(storedIdentity({ ...row, setup_json: '{"replies":{"padded":"yes"}}' }).replies).toBeNull();
  });
});
