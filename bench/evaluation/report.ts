import type { EvaluationReport } from "./evaluation.js";

const pct = (x: number) => (x * 100).toFixed(1).padStart(8);
const fixed = (x: number) => x.toFixed(4).padStart(8);

function heldOut(r: EvaluationReport): string {
  if (r.protocol === "given") return "the published test part (test.txt)";
  if (r.protocol === "random") return "a random 25% of each user's interactions (seeded)";
  return r.holdout < 1 ? `each user's latest ${r.holdout * 100}%` : `each user's latest ${r.holdout}`;
}

export function formatReport(r: EvaluationReport): string {
  const lines = [
    `data: ${r.data}: ${r.rows} rows, ${r.items} items, ${r.trainingInteractions} user×item pairs trained on`,
    `protocol ${r.protocol}: held out ${heldOut(r)}${r.novel ? ", counting only items new to the user" : ""}; ${r.evaluatedUsers} users evaluated; the user's training items are never recommended`,
    `model: ${Object.entries(r.als)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
    ...Object.entries(r.extra).map(([k, v]) => `${k}: ${v}`),
    "",
    `${"strategy".padEnd(40)} ${[`P@${r.k}`, `R@${r.k}`, `nDCG@${r.k}`, `MAP@${r.k}`].map((h) => h.padStart(8)).join(" ")} coverage fallback`,
  ];
  for (const { ranker, scores: s } of r.results) {
    lines.push(
      `${ranker.padEnd(40)} ${fixed(s.precision)} ${fixed(s.recall)} ${fixed(s.ndcg)} ${fixed(s.map)} ${pct(s.coverage)}% ${pct(s.fallback)}%`,
    );
  }
  return lines.join("\n");
}
