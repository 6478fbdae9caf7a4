/**
 * Whether memory stayed flat and latency stable. Judged, not asserted: a soak on a shared machine is noisy,
 * so the verdicts carry thresholds wide enough for noise and the figures they came from.
 */

/** Minutes compared for latency drift: 2–10 (the first minute warms up) against the last ten, never overlapping. */
export function comparisonWindows(minutes: number): { early: { from: number; to: number }; late: { from: number; to: number } } {
  const earlyTo = Math.min(10, Math.max(2, Math.floor(minutes / 2)));
  return { early: { from: 2, to: earlyTo }, late: { from: Math.max(earlyTo + 1, minutes - 9), to: minutes } };
}

/** Least-squares slope of y over x, per unit of x (NaN under two points). */
export function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

export type MemoryVerdict = ReturnType<typeof memoryVerdict>;

/** Growth counts when the fitted slope exceeds both 10 MB and 3% of the mean per 10 minutes. */
const GROWTH_MB_PER_10 = 10;
const GROWTH_SHARE_PER_10 = 0.03;

function fit(perMinute: number[], from: number): { points: number; mbPer10Min: number; mean: number } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let m = from; m <= perMinute.length; m++) {
    if (Number.isFinite(perMinute[m - 1])) {
      xs.push(m);
      ys.push(perMinute[m - 1]!);
    }
  }
  return { points: xs.length, mbPer10Min: slope(xs, ys) * 10, mean: ys.reduce((a, b) => a + b, 0) / Math.max(1, ys.length) };
}

const grows = (f: { mbPer10Min: number; mean: number }) => f.mbPer10Min > GROWTH_MB_PER_10 && f.mbPer10Min > GROWTH_SHARE_PER_10 * f.mean;

/**
 * `perMinute[m - 1]`: the sample at the end of minute m. Fitted over minutes 5..end (1..end in runs under 7
 * minutes, `fitFrom`..`fitTo`); `stepMinute`: the minute a one-off event ended (the upload), fitted `after` it
 * too when at least five minutes follow, so that a step it leaves behind is told apart from a steady climb.
 * `lastMb`: the mean of the last three minutes' samples.
 */
export function memoryVerdict(perMinute: number[], stepMinute?: number) {
  const n = perMinute.length;
  const fitFrom = n >= 7 ? 5 : 1;
  const whole = fit(perMinute, fitFrom);
  const afterFit = stepMinute !== undefined && stepMinute >= fitFrom && n - stepMinute >= 5 ? fit(perMinute, stepMinute + 1) : undefined;
  const after = afterFit ? { from: stepMinute! + 1, mbPer10Min: afterFit.mbPer10Min } : undefined;
  const last = perMinute.slice(-3).filter(Number.isFinite);
  const growing = grows(whole);
  const verdict =
    whole.points < 3
      ? "too short to judge"
      : !growing
        ? "flat"
        : afterFit && !grows(afterFit)
          ? "GROWING (a step at the upload, flat after it)"
          : "GROWING";
  return {
    firstMb: perMinute[0] ?? NaN,
    lastMb: last.reduce((a, b) => a + b, 0) / Math.max(1, last.length),
    fitFrom,
    fitTo: n,
    mbPer10Min: whole.mbPer10Min,
    after, // undefined (left out of the figures' JSON) when not fitted
    growing,
    verdict,
  };
}

/** Drift: the late window's p99 over 1.5 times the early one's and more than 2 ms above it (sub-ms wobble is not drift). */
const DRIFT_RATIO = 1.5;
const DRIFT_MIN_MS = 2;

export function latencyVerdict(earlyP99: number, lateP99: number, minutes: number) {
  const ratio = lateP99 / earlyP99;
  const drift = ratio > DRIFT_RATIO && lateP99 - earlyP99 > DRIFT_MIN_MS;
  const verdict = minutes < 3 || !Number.isFinite(ratio) ? "too short to judge" : drift ? "DRIFT" : "stable";
  return { earlyP99, lateP99, ratio, drift, verdict };
}
