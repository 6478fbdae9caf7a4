import type { Scores } from "./metrics.js";

export interface EvaluationReport {
  data: string;
  rows: number;
  items: number;
  trainingInteractions: number;
  evaluatedUsers: number;
  holdout: number;
  novel: boolean;
  als: Record<string, number>;
  trainingMs: number;
  results: { ranker: string; scores: Scores }[];
  extra: Record<string, number>;
}

const pct = (x: number) => (x * 100).toFixed(1).padStart(6);
const fixed = (x: number) => x.toFixed(4).padStart(7);

export function formatReport(r: EvaluationReport): string {
  const lines = [
    `data: ${r.data}: ${r.rows} rows, ${r.items} items, ${r.trainingInteractions} user×item training pairs`,
    `holdout: ${r.holdout < 1 ? `latest ${r.holdout * 100}%` : `latest ${r.holdout}`} of each user's interactions${r.novel ? ", counting only items new to the user" : ""}; ${r.evaluatedUsers} users evaluated`,
    `ALS: ${Object.entries(r.als).map(([k, v]) => `${k}=${v}`).join(" ")}; training ${(r.trainingMs / 1000).toFixed(2)} s`,
    ...Object.entries(r.extra).map(([k, v]) => `${k}: ${v}`),
    "",
    `${"strategy".padEnd(36)} Recall@10 Recall@20 NDCG@10 coverage% fallback%`,
  ];
  for (const { ranker, scores: s } of r.results) {
    lines.push(`${ranker.padEnd(36)} ${fixed(s.recall10)}   ${fixed(s.recall20)}   ${fixed(s.ndcg10)} ${pct(s.coverage)}    ${pct(s.fallback)}`);
  }
  return lines.join("\n");
}
