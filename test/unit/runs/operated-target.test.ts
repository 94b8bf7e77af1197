import { isLoopbackHost, refuseUnoperatedTargets, OPERATED_FLAG } from '../../../src/runs/operated-target';
import { UserError } from '../../../src/core/user-error';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  it.each(['128.0.0.1', '10.0.0.1', '192.168.1.2', '::2', 'example.com', 'localhost.example.com', '::ffff:10.0.0.1', '1127.0.0.1'])('%s is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('refuseUnoperatedTargets', () => {
  const local = { name: 'a', host: '127.0.0.1' };
  const remote = { name: 'far', host: 'electrum.example.com' };
  it('lets loopback and lab targets through', () => {
    expect(() => refuseUnoperatedTargets([local, { name: 'lab', host: '10.1.2.3', lab: true }], false, '--abuse idle-connections')).not.toThrow();
  });
  it('refuses any other target in one line naming it and the flag, as a user error', () => {
    let err: unknown;
    try {
      refuseUnoperatedTargets([local, remote], false, '--abuse idle-connections');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const message = (err as UserError).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('far');
    expect(message).toContain('electrum.example.com');
    expect(message).toContain(OPERATED_FLAG);
    expect(message).toContain('--abuse idle-connections');
  });
  it('lets any target through when the user states they operate it', () => {
    expect(() => refuseUnoperatedTargets([remote], true, '--abuse idle-connections')).not.toThrow();
  });
});
