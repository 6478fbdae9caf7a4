/**
 * The statistics of an experiment's results, at 95 %: a proportion's Wilson score interval; a variant against
 * the control by the two-sided two-proportion z-test with the pooled proportion (its p-value), and the
 * difference's Newcombe hybrid score interval (built from the two Wilson intervals, so it stays inside
 * [-1, 1] and behaves at small counts where the plain Wald interval does not).
 */

/** The normal quantile of 0.975. */
export const Z_95 = 1.959963984540054;
export const SIGNIFICANCE = 0.05;

export interface Interval {
  low: number;
  high: number;
}

export interface Proportion extends Interval {
  rate: number;
}

export interface Difference extends Interval {
  /** The variant's rate minus the control's. */
  difference: number;
  p_value: number;
  /** p_value < 0.05. */
  significant: boolean;
}

/** successes / trials with its Wilson score interval; with no trials the rate is 0 and the interval all of [0, 1]. */
export function wilson(successes: number, trials: number, z = Z_95): Proportion {
  if (trials === 0) return { rate: 0, low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  // At 0 or all successes the bound is exactly 0 or 1; floating point would leave 1e-17 of it.
  return { rate: p, low: successes === 0 ? 0 : Math.max(0, centre - half), high: successes === trials ? 1 : Math.min(1, centre + half) };
}

/**
 * Variant (x1 of n1) against control (x2 of n2). The p-value is the two-sided pooled z-test's; 1 when either
 * side has no trials or the pooled proportion is 0 or 1 (nothing tells the two apart).
 */
export function compare(x1: number, n1: number, x2: number, n2: number): Difference {
  const a = wilson(x1, n1);
  const b = wilson(x2, n2);
  const difference = a.rate - b.rate;
  const low = difference - Math.sqrt((a.rate - a.low) ** 2 + (b.high - b.rate) ** 2);
  const high = difference + Math.sqrt((a.high - a.rate) ** 2 + (b.rate - b.low) ** 2);
  const p_value = pooledZTest(x1, n1, x2, n2);
  return { difference, low: Math.max(-1, low), high: Math.min(1, high), p_value, significant: p_value < SIGNIFICANCE };
}

/** The two-sided p-value of the two-proportion z-test with pooled variance. */
export function pooledZTest(x1: number, n1: number, x2: number, n2: number): number {
  if (n1 === 0 || n2 === 0) return 1;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return 1;
  const z = Math.abs(x1 / n1 - x2 / n2) / se;
  return Math.min(1, erfc(z / Math.SQRT2));
}

/**
 * The complementary error function for x ≥ 0 by Abramowitz and Stegun's formula 7.1.26 (absolute error under
 * 1.5e-7: ample for a p-value, whose threshold is 0.05); odd symmetry of erf for x < 0.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * z);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const r = poly * Math.exp(-z * z);
  return x >= 0 ? r : 2 - r;
}
