/** Ordinary least squares of y on x. */
export interface LinearFit {
  slope: number;
  intercept: number;
  r2: number | null; // null when y is constant: nothing to explain
}

/** Null with fewer than two distinct x: a slope needs addresses of different sizes. */
export function leastSquares(xs: readonly number[], ys: readonly number[]): LinearFit | null {
  const n = xs.length;
  if (n < 2 || ys.length !== n) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i];
    my += ys[i];
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
    syy += (ys[i] - my) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, r2: syy === 0 ? null : (sxy * sxy) / (sxx * syy) };
}
