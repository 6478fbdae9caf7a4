// An experiment's result in plain words, from what GET /v1/analytics/experiments/{id} answers: each variant
// against the control on one measure, saying only what its test (the pooled two-proportion z-test at 95 %)
// allows. Pure functions: no DOM, so the words are tested on their own (test/web/verdict.test.ts).

/** The measures a result has, as the API names them, with the words for them. */
export const MEASURES = {
  user_conversion: { label: "Conversion per user", verb: "converts", trials: "users", successes: "users_converted", unit: "users" },
  conversion: { label: "Conversion per recommendation", verb: "converts", trials: "served", successes: "conversions", unit: "recommendations" },
  user_click_through: { label: "Click-through per user", verb: "is clicked", trials: "users", successes: "users_clicked", unit: "users" },
  click_through: { label: "Click-through per recommendation", verb: "is clicked", trials: "served", successes: "clicks", unit: "recommendations" },
};

/** The normal quantiles of 0.975 (95 %, two-sided) and 0.8 (the power the "more needed" estimate asks for). */
const Z_ALPHA = 1.959963984540054;
const Z_POWER = 0.8416212335729143;
/** Beyond this many, "more needed" is no practical advice: the difference seen is too small to chase. */
const NEEDED_MAX = 10_000_000;

export const percent = (x) => `${(x * 100).toFixed(x !== 0 && Math.abs(x) < 0.1 ? 2 : 1)} %`;
const points = (x) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(x * 100).toFixed(2)} points`;
const count = (n) => Math.round(n).toLocaleString("en");
const pValue = (p) => (p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`);

/**
 * Trials per group for the pooled z-test at 95 % to find a true difference between rates p1 and p2 with 80 %
 * power (the usual normal-approximation formula); Infinity when they are equal.
 */
export function trialsNeeded(p1, p2) {
  const d = Math.abs(p1 - p2);
  if (d === 0) return Infinity;
  const mean = (p1 + p2) / 2;
  const n = (Z_ALPHA * Math.sqrt(2 * mean * (1 - mean)) + Z_POWER * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (d * d);
  return Math.ceil(n);
}

/**
 * One sentence (and its kind: better, worse, unclear, waiting) per variant other than the control, on `measure`.
 * "Better" and "worse" only when the test says the difference is significant at 95 %.
 */
export function verdicts(results, measure = "user_conversion") {
  const m = MEASURES[measure];
  const control = results.variants.find((v) => v.control);
  return results.variants.filter((v) => !v.control).map((v) => ({ variant: v.variant, ...sentence(m, measure, control, v) }));
}

function sentence(m, measure, control, v) {
  const a = control[measure];
  const b = v[measure];
  const d = v.against_control[measure];
  const name = v.variant === "holdout" ? "The holdout (popular, not personalized)" : v.variant;
  const vs = control.variant;
  if (control[m.trials] === 0 || v[m.trials] === 0) {
    const none = [control, v].filter((x) => x[m.trials] === 0).map((x) => x.variant);
    return { kind: "waiting", text: `Nothing to compare yet: no ${m.unit} in ${none.join(" and ")} so far.` };
  }
  if (control[m.successes] === 0 && v[m.successes] === 0) {
    return {
      kind: "waiting",
      text: `Nothing to compare yet: neither ${vs} nor ${v.variant} has a ${measure.includes("conversion") ? "conversion" : "click"} so far (${count(control[m.trials] + v[m.trials])} ${m.unit}).`,
    };
  }
  const interval = `the true difference is likely between ${points(d.low)} and ${points(d.high)}`;
  if (d.significant) {
    const more = d.difference > 0;
    const relative = a.rate > 0 ? `${Math.round((Math.abs(d.difference) / a.rate) * 100)} % ${more ? "more" : "less"}` : "more";
    return {
      kind: more ? "better" : "worse",
      text:
        `${name} ${m.verb} ${relative} than ${vs} (${percent(b.rate)} against ${percent(a.rate)} of ${m.unit}): ` +
        `95 % sure it is not chance (${pValue(d.p_value)}); ${interval}.`,
    };
  }
  const needed = trialsNeeded(a.rate, b.rate);
  const have = Math.min(control[m.trials], v[m.trials]);
  let more;
  if (!Number.isFinite(needed) || needed > NEEDED_MAX) {
    more = "the rates seen so far are too close for any practical number of users to tell apart";
  } else if (needed <= have) {
    more = "if a difference exists, it is smaller than the one seen so far";
  } else {
    more = `about ${count(needed - have)} more ${m.unit} in each would tell a difference as large as the one seen so far, if it is real`;
  }
  return {
    kind: "unclear",
    text: `No difference between ${v.variant} and ${vs} can be told yet (${percent(b.rate)} against ${percent(a.rate)} of ${m.unit}, ${pValue(d.p_value)}): ${more}; ${interval}.`,
  };
}
