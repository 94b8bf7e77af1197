import { isLoopbackHost, OPERATE_FLAG, refuseUnlessOperated } from '../../../src/core/target-safety';
import { UserError } from '../../../src/core/user-error';

test('loopback is 127.0.0.0/8, ::1 (however written) and localhost; nothing a resolver would have to say', () => {
  for (const h of ['127.0.0.1', '127.0.0.2', '127.8.9.10', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) expect([h, isLoopbackHost(h)]).toEqual([h, true]);
  for (const h of ['128.0.0.1', '10.0.0.1', '192.0.2.1', '::2', '::ffff:10.0.0.1', 'example.com', 'localhost.example.com', '127.0.0.1.nip.io', '1127.0.0.1', '0.0.0.0', ''])
    expect([h, isLoopbackHost(h)]).toEqual([h, false]);
});

test('a target off this machine is refused in one line naming it and the flag, unless the user operates it', () => {
  const targets = [
    { name: 'lab', host: '127.0.0.1' },
    { name: 'theirs', host: '192.0.2.7' },
  ];
  expect(() => refuseUnlessOperated('limits', targets, false)).toThrow(UserError);
  expect(() => refuseUnlessOperated('limits', targets, false)).toThrow(/^limits .*theirs \(192\.0\.2\.7\).*--i-operate-this-server$/);
  expect(OPERATE_FLAG).toBe('--i-operate-this-server');
  expect(() => refuseUnlessOperated('limits', targets, true)).not.toThrow();
  expect(() => refuseUnlessOperated('limits', [targets[0]], false)).not.toThrow();
});

test('the lab\'s targets pass wherever they are; an abuse is refused as limits is, naming it and the first server off this machine', () => {
  const local = { name: 'a', host: '127.0.0.1' };
  const far = { name: 'far', host: 'electrum.example.com' };
  expect(() => refuseUnlessOperated('--abuse idle-connections', [local, { name: 'lab', host: '10.1.2.3', lab: true }], false)).not.toThrow();
  let err: unknown;
  try {
    refuseUnlessOperated('--abuse idle-connections', [local, far], false);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UserError);
  const message = (err as UserError).message;
  expect(message).not.toContain('\n');
  expect(message).toMatch(/^--abuse idle-connections .*far \(electrum\.example\.com\).*--i-operate-this-server$/);
  expect(() => refuseUnlessOperated('--abuse idle-connections', [far], true)).not.toThrow();
});
