/**
 * A few requests per strategy sent one by one before it is driven, to see what the load will be made of:
 * statuses, how often the strategy answered itself rather than falling back to popular, results per answer
 * and answer size. autocannon does not look at bodies, so without this a run of fallbacks would look fast.
 */
import { call } from "../../kit/api.js";

export async function sample(url: string, pk: string, body: () => string, n: number) {
  // modes: answers per mode (personalized, contextual, global, fallback); example: one 200 body, for the ceiling's canned answer.
  const s = { requests: 0, non200: 0, modes: {} as Record<string, number>, meanResults: 0, meanBytes: 0, example: undefined as string | undefined };
  let results = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const { status, text, json } = await call(`${url}/v1/recommend`, { key: pk, body: body() });
    s.requests++;
    if (status !== 200) {
      s.non200++;
      continue;
    }
    const data = json.data as { mode: string; results: unknown[] };
    s.modes[data.mode] = (s.modes[data.mode] ?? 0) + 1;
    results += data.results.length;
    bytes += Buffer.byteLength(text);
    s.example ??= text;
  }
  const ok = s.requests - s.non200;
  s.meanResults = results / Math.max(1, ok);
  s.meanBytes = bytes / Math.max(1, ok);
  return s;
}
