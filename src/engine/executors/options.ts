/**
 * The command-line options that choose a load executor and build its config, declared in the
 * executor's own file (k6 reads an executor's config from the script's `scenarios`; here it comes
 * from flags). `load` declares every registered executor's options with yargs and asks the
 * registry which executor the given ones name, so a new executor brings its options with it.
 */
import type { Stage } from '../../core/load-types';
import { durationOption, withinTimer } from '../../core/timer-limit';
import { collecting } from '../../core/user-error';
import { parseStages, stagesLengthMs } from '../ramp';

/** One option as yargs declares it (`default` only when leaving it out means that value). */
export interface NumberOption {
  type: 'number';
  describe: string;
  default?: number;
}
export interface StringOption {
  type: 'string';
  describe: string;
  default?: string;
}
export type ModelOption = NumberOption | StringOption;
export type ModelOptions = Record<string, ModelOption>;

/** What yargs gives for each option of `O`: a value, undefined when left out and without a default. */
export type OptionValues<O extends ModelOptions> = {
  [K in keyof O]: (O[K] extends NumberOption ? number : string) | (O[K] extends { default: number | string } ? never : undefined);
};

/** How the command line chooses an executor and builds its config. */
export interface Choice<M, O extends ModelOptions> {
  /**
   * The option that chooses it (`rate`: `--rate R`). Exactly one executor's flag may be given,
   * except that a flag another chosen executor reads among its `options` chooses nothing itself
   * (`--vus N --iterations K` is shared-iterations with N users, not constant VUs as well).
   */
  readonly flag: keyof O & string;
  /** How "give exactly one load model" names it, e.g. `--rate R`. */
  readonly usage: string;
  /** Every option it reads, its flag among them. An option several executors read is declared alike by each. */
  readonly options: O;
  /**
   * Its config from the options as parsed; an option that does not parse is noted in `problems`
   * and something stands in for it, so that validate() still judges the rest (every problem at once).
   */
  build(args: OptionValues<O>, problems: string[]): M;
}

/** Declares an executor's options keeping each one's type and whether it has a default. */
export function modelOptions<const O extends ModelOptions>(options: O): O {
  return options;
}

/** The users of the closed executors (also read by the iteration executors). */
export const VUS_OPTION = {
  type: 'number',
  describe: 'closed model: virtual clients, one request in flight each (with --iterations: the users sharing them)',
} as const satisfies NumberOption;

export const THINK_TIME_OPTION = { type: 'string', default: '0', describe: 'closed model: pause after each reply (e.g. 100ms)' } as const satisfies StringOption;

/** --think-time in ms; 0 (noted in `problems`) when it does not parse. */
export function thinkTimeFrom(typed: string, problems: string[]): number {
  return collecting(problems)(() => durationOption('think-time', typed)) ?? 0;
}

/** `--OPTION`'s stages, within what a timer holds; none (noted in `problems`) when they do not parse. */
export function stagesFrom(option: string, typed: string, problems: string[]): Stage[] {
  return (
    collecting(problems)(() => {
      const stages = parseStages(typed, `--${option}`);
      withinTimer(`--${option}`, typed, stagesLengthMs(stages));
      return stages;
    }) ?? []
  );
}
