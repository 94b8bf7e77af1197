/** `--abuse PROFILE[:param=value,…]` read against the profile's declared parameters (profiles.ts). */
import { UserError } from '../../core/user-error';
import { ABUSE_PROFILES, type AbuseProfile } from './profiles';

export interface AbuseSpec {
  profile: AbuseProfile;
  params: Record<string, number>;
  /** As the user wrote it, for the record and the summary. */
  text: string;
}

export function parseAbuseSpec(text: string): AbuseSpec {
  const [name, rest] = text.split(/:(.*)/s, 2);
  // Own names only: `constructor` or `__proto__` must not find what every object inherits.
  const profile = Object.hasOwn(ABUSE_PROFILES, name) ? ABUSE_PROFILES[name] : undefined;
  if (!profile) throw new UserError(`--abuse ${text}: no abuse profile "${name}" (known: ${Object.keys(ABUSE_PROFILES).join(', ')})`);
  const params: Record<string, number> = {};
  for (const [k, p] of Object.entries(profile.params)) params[k] = p.default;
  for (const pair of rest ? rest.split(',') : []) {
    const [key, value] = pair.split('=', 2);
    const declared = Object.hasOwn(profile.params, key) ? profile.params[key] : undefined;
    if (!declared) throw new UserError(`--abuse ${text}: ${name} has no parameter "${key}" (it has: ${Object.keys(profile.params).join(', ')})`);
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 1 || n > declared.max) throw new UserError(`--abuse ${text}: ${key} must be a whole number from 1 to ${declared.max}, not "${value ?? ''}"`);
    params[key] = n;
  }
  return { profile, params, text };
}
