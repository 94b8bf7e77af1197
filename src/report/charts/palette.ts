/**
 * One colour per server for the whole report, fixed by the server's place in the model, so a
 * server keeps its colour when another is excluded or when the charts are faceted.
 * Red is left out: it marks errors.
 */
const COLOURS = ['#4c78a8', '#f58518', '#54a24b', '#b279a2', '#72b7b2', '#eeca3b', '#9d755d', '#bab0ac', '#ff9da6', '#439894'];

export const ERROR_COLOUR = '#d62728';

export function colourScale(allServers: readonly string[], shown: readonly string[]): { domain: string[]; range: string[] } {
  return { domain: [...shown], range: shown.map((s) => COLOURS[allServers.indexOf(s) % COLOURS.length]) };
}
