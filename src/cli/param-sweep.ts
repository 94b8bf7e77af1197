/** `--param NAME=v1,v2,…`: one server setting and the values a sweep runs it with (bench and index-bench). */
import { UserError } from '../core/user-error';

export interface ParamSweep {
  name: string;
  values: string[];
}

export function parseParamSweep(text: string): ParamSweep {
  const m = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(text);
  const values = m ? m[2].split(',').map((v) => v.trim()).filter(Boolean) : [];
  if (!m || values.length === 0) throw new UserError(`--param: expected NAME=v1,v2,..., got ${JSON.stringify(text)}`);
  return { name: m[1], values };
}
