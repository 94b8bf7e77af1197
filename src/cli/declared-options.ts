/**
 * Checks yargs leaves to the program, driven by how each option was declared.
 *
 * `--config FILE`: yargs itself reports any unreadable or invalid file as "Invalid JSON config
 * file", and takes whatever types the JSON holds (a number where a list of servers belongs ends as
 * a crash deep inside). Here every key is checked against the type its option was declared with,
 * and each failure names the file and the key.
 *
 * A single-valued option given twice (`--db a --db b`) arrives as an array where a string is
 * expected; it is refused rather than guessed at.
 */
import fs from 'node:fs';
import { claimInput } from '../core/output-path';
import { UserError } from '../core/user-error';

/** The part of yargs' `getOptions()` (untyped in @types/yargs) that says what each option takes. */
interface DeclaredOptions {
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
  array: string[];
  string: string[];
  number: string[];
  boolean: string[];
}

type Kind = 'string' | 'strings' | 'number' | 'boolean';

const KIND_TEXT: Record<Kind, string> = {
  string: 'a string',
  strings: 'a string or a list of strings',
  number: 'a number',
  boolean: 'true or false',
};

/** A yargs `.config()` parser; `y` is the yargs instance the options are declared on. */
export function configFileParser(y: object): (file: string) => Record<string, unknown> {
  return (file) => readConfigFile(file, (y as { getOptions(): DeclaredOptions }).getOptions());
}

/** A yargs `.check()` refusing a repeated single-valued option; `y` as for configFileParser. */
export function givenOnce(y: object): (argv: Record<string, unknown>) => true {
  return (argv) => {
    const declared = (y as { getOptions(): DeclaredOptions }).getOptions();
    for (const key of Object.keys(declared.key)) {
      const v = argv[key];
      if (Array.isArray(v) && !declared.array.includes(key)) throw new UserError(`--${key} is given ${v.length} times; give it once`);
    }
    return true;
  };
}

export function readConfigFile(file: string, declared: DeclaredOptions): Record<string, unknown> {
  claimInput(file, '--config');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`--config: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (err) {
    throw new UserError(`--config: ${file} is not valid JSON (${(err as Error).message})`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new UserError(`--config: ${file} must hold a JSON object of options, e.g. {"passes": 20}`);
  }
  const kinds = kindsOf(declared);
  for (const [key, value] of Object.entries(config)) {
    const kind = kinds.get(key);
    if (kind === undefined) throw new UserError(`--config: ${file}: unknown option ${JSON.stringify(key)}`);
    if (!fits(kind, value)) {
      throw new UserError(`--config: ${file}: "${key}" must be ${KIND_TEXT[kind]}, got ${JSON.stringify(value)}`);
    }
  }
  return config as Record<string, unknown>;
}

function kindsOf(d: DeclaredOptions): Map<string, Kind> {
  const kinds = new Map<string, Kind>();
  for (const key of Object.keys(d.key)) {
    const kind: Kind | undefined = d.boolean.includes(key)
      ? 'boolean'
      : d.number.includes(key)
        ? 'number'
        : d.array.includes(key)
          ? 'strings'
          : d.string.includes(key)
            ? 'string'
            : undefined;
    if (kind === undefined) continue;
    // yargs accepts a key under any of its aliases and in camelCase too.
    for (const name of [key, ...(d.alias[key] ?? [])]) {
      kinds.set(name, kind);
      kinds.set(name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()), kind);
    }
  }
  return kinds;
}

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'string':
      return typeof v === 'string';
    case 'strings':
      return typeof v === 'string' || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  }
}
