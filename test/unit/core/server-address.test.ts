/** The one parser of "which server": schemes, IPv6 in brackets, labels, and one-line UserErrors. */
import { checkHost, formatHostPort, formatServerUrl, parseServerAddress, parseServerSpec } from '../../../src/core/server-address';
import { completeTarget, parseServerSpec as parseBenchSpec, targetUrl } from '../../../src/servers/targets';
import { electrumTarget } from '../../../src/dataset/options';
import { UserError } from '../../../src/core/user-error';

function userError(f: () => unknown): UserError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err as UserError;
  }
  throw new Error('expected a UserError');
}

describe('parseServerAddress', () => {
  test.each([
    ['127.0.0.1:50001', { host: '127.0.0.1', port: 50001, tls: false }],
    ['localhost', { host: 'localhost', tls: false }],
    ['electrum.example.org:50002', { host: 'electrum.example.org', port: 50002, tls: false }],
    ['tcp://h:1', { host: 'h', port: 1, tls: false, scheme: 'tcp' }],
    ['electrum://h:50001', { host: 'h', port: 50001, tls: false, scheme: 'electrum' }],
    ['ssl://h:50002', { host: 'h', port: 50002, tls: true, scheme: 'ssl' }],
    ['TLS://h', { host: 'h', tls: true, scheme: 'tls' }],
    ['electrums://h:50002/', { host: 'h', port: 50002, tls: true, scheme: 'electrums' }],
    ['[::1]:50001', { host: '::1', port: 50001, tls: false }],
    ['[::1]', { host: '::1', tls: false }],
    ['ssl://[2001:db8::7]:50002', { host: '2001:db8::7', port: 50002, tls: true, scheme: 'ssl' }],
    ['ws://h:50003', { host: 'h', port: 50003, tls: false, websocket: true, scheme: 'ws' }],
    ['WSS://[::1]:50004/', { host: '::1', port: 50004, tls: true, websocket: true, scheme: 'wss' }],
  ])('%s', (text, expected) => {
    expect(parseServerAddress(text, '--x')).toEqual(expected);
  });

  test.each([
    ['::1:50001', /brackets/],
    ['[::1:50001', /bracket is never closed/],
    ['[zz::1]:50001', /"\[zz::1\]" is not a host/],
    ['[::1]50001', /expected :PORT after \[::1\]/],
    ['h:0', /port must be 1\.\.65535/],
    ['h:70000', /port must be 1\.\.65535/],
    ['h:abc', /port must be 1\.\.65535, got "abc"/],
    ['h:', /port must be/],
    [':50001', /no host/],
    ['gopher://h:1', /unknown scheme gopher:\/\/; known: .*ws:\/\/, wss:\/\//],
    ['ws://h:1/electrum', /port must be 1\.\.65535, got "1\/electrum"/],
    ['no such host', /is not a host name/],
    ['1.2.3', /is not a host name/],
    ['a@b', /is not a host name/],
  ])('%s is refused', (text, message) => {
    const err = userError(() => parseServerAddress(text, `--x ${JSON.stringify(text)}`));
    expect(err.message).toMatch(message);
    expect(err.message).toContain(`--x ${JSON.stringify(text)}`);
  });

  test('a scheme can be required', () => {
    expect(userError(() => parseServerAddress('h:1', '--count-via "h:1"', { requireScheme: true })).message).toMatch(/--count-via "h:1": expected electrum:\/\//);
  });
});

describe('parseServerSpec', () => {
  test('profile, label and address', () => {
    expect(parseServerSpec('electrumx')).toEqual({ profile: 'electrumx' });
    expect(parseServerSpec('old=electrumx@10.0.0.5:50001')).toEqual({ label: 'old', profile: 'electrumx', address: { host: '10.0.0.5', port: 50001, tls: false } });
    expect(parseServerSpec('b=fulcrum@ssl://[::1]:50002')).toEqual({ label: 'b', profile: 'fulcrum', address: { host: '::1', port: 50002, tls: true, scheme: 'ssl' } });
  });

  test.each(['!!!', 'electrumx@@@', 'electrumx@::1:50001', 'electrumx@[::1:50001', 'a=b=electrumx', ''])('%j is refused, naming the spec', (spec) => {
    const err = userError(() => parseServerSpec(spec));
    expect(err.message).toContain('--server');
    expect(err.message).toContain(JSON.stringify(spec));
  });
});

describe('bench targets over WebSocket', () => {
  test('ws:// and wss:// keep the profile, and are stored and shown as written', () => {
    const plain = completeTarget(parseBenchSpec('a=electrumx@ws://127.0.0.1:50003'), {});
    expect(plain).toEqual({ name: 'a', profile: 'electrumx', host: '127.0.0.1', port: 50003, tls: false, websocket: true });
    expect(targetUrl(plain)).toBe('ws://127.0.0.1:50003');
    const secure = completeTarget(parseBenchSpec('fulcrum@wss://[::1]:50004'), {});
    expect(secure).toMatchObject({ profile: 'fulcrum', host: '::1', port: 50004, tls: true, websocket: true });
    expect(targetUrl(secure)).toBe('wss://[::1]:50004');
  });

  test.each([
    ['electrumx@ws://h', /ws:\/\/ needs a port/],
    ['fulcrum@wss://h', /wss:\/\/ needs a port/],
    ['esplora-rest@ws://h:1', /esplora-rest speaks HTTP/],
    ['electrumx@ws://h:0', /port must be 1\.\.65535/],
  ])('%s is refused, naming the spec', (spec, message) => {
    const err = userError(() => parseBenchSpec(spec));
    expect(err.message).toMatch(message);
    expect(err.message).toContain(JSON.stringify(spec));
    expect(err.message).not.toContain('\n');
  });
});

describe('bench targets: HTTP only for the REST profile', () => {
  test('esplora-rest takes http:// and https://, on port 3000 by default', () => {
    expect(completeTarget(parseBenchSpec('r=esplora-rest@http://127.0.0.1:3002'), {})).toEqual({ name: 'r', profile: 'esplora-rest', host: '127.0.0.1', port: 3002, tls: false });
    expect(completeTarget(parseBenchSpec('esplora-rest@https://h'), {})).toMatchObject({ port: 443, tls: true });
    expect(completeTarget(parseBenchSpec('esplora-rest@h'), {})).toMatchObject({ port: 3000, tls: false });
    expect(targetUrl(completeTarget(parseBenchSpec('esplora-rest@[::1]:3002'), {}))).toBe('http://[::1]:3002');
  });

  test.each([
    ['electrumx@http://h:1', /http:\/\/ is for the esplora-rest or mempool-electrs-rest profile/],
    ['esplora-rest@ssl://h:1', /esplora-rest speaks HTTP/],
  ])('%s is refused, naming the spec', (spec, message) => {
    const err = userError(() => parseBenchSpec(spec));
    expect(err.message).toMatch(message);
    expect(err.message).toContain(JSON.stringify(spec));
  });
});

describe('formatting', () => {
  test('IPv6 goes back in brackets', () => {
    expect(formatHostPort('::1', 50001)).toBe('[::1]:50001');
    expect(formatHostPort('h', 1)).toBe('h:1');
    expect(formatServerUrl({ host: '::1', port: 50002, tls: true })).toBe('electrums://[::1]:50002');
    expect(formatServerUrl({ host: 'h', port: 50001, tls: false }, 'tcp')).toBe('tcp://h:50001');
    expect(formatServerUrl({ host: 'h', port: 50003, tls: false, websocket: true }, 'tcp')).toBe('ws://h:50003');
    expect(formatServerUrl({ host: 'h', port: 50004, tls: true, websocket: true })).toBe('wss://h:50004');
  });

  test('parse and format round-trip', () => {
    for (const text of ['electrum://h:1', 'electrums://[::1]:50002', 'electrum://10.0.0.5:50001']) {
      const a = parseServerAddress(text, '--x');
      expect(formatServerUrl({ host: a.host, port: a.port!, tls: a.tls })).toBe(text);
    }
  });

  test('checkHost takes a bare IPv6 address where nothing follows it', () => {
    expect(checkHost('::1', '--host')).toBe('::1');
    expect(checkHost('[::1]', '--host')).toBe('::1');
    expect(userError(() => checkHost('no such host', '--host')).message).toMatch(/--host: "no such host"/);
  });
});

describe('the stages that parse servers use it', () => {
  test('bench --server', () => {
    const t = completeTarget(parseBenchSpec('x=electrs@[::1]'), {});
    expect(t).toEqual({ name: 'x', profile: 'electrs', host: '::1', port: 50001, tls: false });
    expect(targetUrl(t)).toBe('tcp://[::1]:50001');
    expect(completeTarget(parseBenchSpec('electrumx@ssl://h'), {}).port).toBe(50002);
    expect(userError(() => parseBenchSpec('nosuch@h:1')).message).toMatch(/unknown server profile "nosuch"/);
    expect(userError(() => completeTarget(parseBenchSpec('electrumx'), { host: 'no such host' })).message).toMatch(/--host/);
  });

  test('dataset --count-via', () => {
    expect(electrumTarget('electrums://[::1]', false)).toEqual({ host: '::1', port: 50002, tls: true, tlsInsecure: false, label: 'electrums://[::1]:50002' });
    expect(electrumTarget('tcp://127.0.0.1:50001', true).label).toBe('electrum://127.0.0.1:50001');
    const err = userError(() => electrumTarget('nope', false));
    expect(err.message).toContain('--count-via');
    expect(err.message).toContain('nope');
    expect(electrumTarget('wss://h:50004', false)).toEqual({ host: 'h', port: 50004, tls: true, websocket: true, tlsInsecure: false, label: 'wss://h:50004' });
    expect(userError(() => electrumTarget('ws://h', false)).message).toBe('--count-via "ws://h": ws:// needs a port (servers have no customary WebSocket port)');
    expect(userError(() => electrumTarget('http://h:3000', false)).message).toMatch(/--count-via "http:\/\/h:3000": counts are asked over the Electrum protocol/);
  });
});
