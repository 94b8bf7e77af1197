import { isLoopbackHost, OPERATE_FLAG, refuseUnlessOperated } from '../../../src/core/target-safety';
import { UserError } from '../../../src/core/user-error';

test('loopback is 127.0.0.0/8, ::1 (however written) and localhost; nothing a resolver would have to say', () => {
  for (const h of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) expect([h, isLoopbackHost(h)]).toEqual([h, true]);
  for (const h of ['128.0.0.1', '10.0.0.1', '192.0.2.1', '::2', '::ffff:10.0.0.1', 'example.com', 'localhost.example.com', '127.0.0.1.nip.io', '0.0.0.0', ''])
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
