/**
 * Median of an ascending array of floats. The store's median() rounds the mean of the two middle
 * values, which is right for integer nanoseconds but not for the report's milliseconds and sizes.
 */
export function medianOf(sorted: readonly number[]): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  return n % 2 === 1 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}
