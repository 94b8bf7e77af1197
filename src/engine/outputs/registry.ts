/** The outputs `--out NAME=ARG` can name: a new one is a file beside this one and a line here. */
import { json } from './json';
import type { Output, OutputKind } from './output';
import { prometheusRemoteWrite } from './prometheus-rw';

const OUTPUTS: readonly OutputKind[] = [json, prometheusRemoteWrite];

export interface OutputSpec {
  kind: OutputKind;
  argument: string;
}

/** Every problem with the --out values, each naming the input. */
export function parseOutputs(values: readonly string[], problems: string[]): OutputSpec[] {
  const specs: OutputSpec[] = [];
  for (const value of values) {
    const eq = value.indexOf('=');
    const name = eq < 0 ? value : value.slice(0, eq);
    const kind = OUTPUTS.find((o) => o.name === name);
    if (!kind) {
      const known = OUTPUTS.map((o) => `${o.name}=${o.argument}`).join(', ');
      // Only a plain name is quoted back: anything else may be a URL with a password in it.
      problems.push(/^[a-z][a-z0-9_-]{0,30}$/.test(name) ? `--out: unknown output ${JSON.stringify(name)} (known: ${known})` : `--out: expected NAME=ARG (known: ${known})`);
      continue;
    }
    const argument = eq < 0 ? '' : value.slice(eq + 1);
    const found = kind.validate(argument);
    problems.push(...found);
    if (!found.length) specs.push({ kind, argument });
  }
  return specs;
}

export function createOutputs(specs: readonly OutputSpec[]): Output[] {
  return specs.map((s) => s.kind.create(s.argument));
}

export function outputsHelp(): string {
  return OUTPUTS.map((o) => `${o.name}=${o.argument}`).join(', ');
}

