/** `--name VALUE` from a bench script's command line, or `fallback` when it was not given. */
export function flag(name: string, fallback: string): string;
export function flag(name: string): string | undefined;
export function flag(name: string, fallback?: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
}
