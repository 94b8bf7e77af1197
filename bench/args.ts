/** `--name VALUE` from a bench script's command line (before a `--`, after which options are for a command it runs), or `fallback` when it was not given. */
export function flag(name: string, fallback: string): string;
export function flag(name: string): string | undefined;
export function flag(name: string, fallback?: string): string | undefined {
  const all = process.argv.slice(2);
  const end = all.indexOf('--');
  const args = end >= 0 ? all.slice(0, end) : all;
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
}
