/**
 * One colour per server for the whole report: a server's colour is fixed by its place in the
 * report's one colour order (src/report/colours.ts: every server of every selected run, first met
 * first), so it keeps its colour in the address, load and wallet charts alike, when another is
 * excluded, or when the charts are faceted. Red is left out: it marks errors.
 */
// Twelve: the demo's rows (five lab servers, two REST APIs, four WebSocket listeners) each their own.
const COLOURS = ['#4c78a8', '#f58518', '#54a24b', '#b279a2', '#72b7b2', '#eeca3b', '#9d755d', '#bab0ac', '#ff9da6', '#439894', '#bcbd22', '#17becf'];

export const ERROR_COLOUR = '#d62728';

export function colourScale(allServers: readonly string[], shown: readonly string[]): { domain: string[]; range: string[] } {
  // A server missing from the order (a model read on its own) goes after every known one.
  const place = (s: string) => (allServers.includes(s) ? allServers.indexOf(s) : allServers.length + shown.filter((x) => !allServers.includes(x)).indexOf(s));
  return { domain: [...shown], range: shown.map((s) => COLOURS[place(s) % COLOURS.length]) };
}
