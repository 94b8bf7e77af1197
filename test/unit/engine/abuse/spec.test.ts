import { parseAbuseSpec } from '../../../../src/engine/abuse/spec';
import { UserError } from '../../../../src/core/user-error';

it('reads a profile with its defaults, and parameters over them', () => {
  const s = parseAbuseSpec('subscription-flood:subscriptions=500');
  expect(s.profile.name).toBe('subscription-flood');
  expect(s.params).toEqual({ subscriptions: 500, chunk: 500 });
  expect(parseAbuseSpec('idle-connections').params.connections).toBe(1000);
});

it.each([
  ['no-such-profile', /no abuse profile "no-such-profile"/],
  ['idle-connections:nope=3', /has no parameter "nope"/],
  ['idle-connections:connections=0', /connections must be a whole number from 1 to 100000/],
  ['idle-connections:connections=100001', /from 1 to 100000/],
  ['idle-connections:connections=2.5', /not "2.5"/],
  ['idle-connections:connections', /not ""/],
  // Names an object has by inheritance are neither profiles nor parameters.
  ['constructor', /no abuse profile "constructor"/],
  ['toString', /no abuse profile "toString"/],
  ['__proto__', /no abuse profile "__proto__"/],
  ['idle-connections:constructor=5', /has no parameter "constructor"/],
  ['idle-connections:__proto__=5', /has no parameter "__proto__"/],
])('refuses %s in one line naming it', (text, why) => {
  expect(() => parseAbuseSpec(text)).toThrow(UserError);
  expect(() => parseAbuseSpec(text)).toThrow(why);
  expect(() => parseAbuseSpec(text)).toThrow(text);
});
