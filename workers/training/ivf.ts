// Building the IVF cells (workers/model/ivf.ts) by k-means over the unit item vectors.
import type { Ivf } from "../model/ivf.js";
import { seededRandom } from "../model/seededRandom.js";

const SAMPLE_MAX = 20_000;
const KMEANS_ROUNDS = 6;

/**
 * Builds cells over the unit-length item vectors `unit` (n × f); items whose vector is zero are left out.
 * `members` lists the items cell by cell: the search order of the rows that `ivf.offsets` delimit.
 */
export function buildIvf(unit: Float32Array, n: number, f: number, seed: number): { ivf: Ivf; members: Int32Array } {
  const cells = Math.max(1, Math.round(Math.sqrt(n)));
  const random = seededRandom(seed);
  const usable: number[] = [];
  for (let i = 0; i < n; i++) if (unit[i * f] !== 0 || unit[i * f + 1] !== 0) usable.push(i);
  const sample = usable.length <= SAMPLE_MAX ? usable : Array.from({ length: SAMPLE_MAX }, () => usable[Math.floor(random() * usable.length)]!);
  const centroids = new Float32Array(cells * f);
  for (let c = 0; c < cells; c++) {
    const pick = sample[Math.floor(random() * sample.length)] ?? 0;
    centroids.set(unit.subarray(pick * f, pick * f + f), c * f);
  }
  for (let round = 0; round < KMEANS_ROUNDS; round++) {
    const sums = new Float64Array(cells * f);
    const counts = new Int32Array(cells);
    for (const i of sample) {
      const c = nearestCell(centroids, cells, unit, i * f, f);
      counts[c]!++;
      for (let k = 0; k < f; k++) sums[c * f + k]! += unit[i * f + k]!;
    }
    for (let c = 0; c < cells; c++) {
      if (counts[c] === 0) continue;
      let norm = 0;
      for (let k = 0; k < f; k++) norm += sums[c * f + k]! ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let k = 0; k < f; k++) centroids[c * f + k] = sums[c * f + k]! / norm;
    }
  }
  const cellOf = new Int32Array(n).fill(-1);
  const sizes = new Int32Array(cells + 1);
  for (const i of usable) {
    const c = nearestCell(centroids, cells, unit, i * f, f);
    cellOf[i] = c;
    sizes[c + 1]!++;
  }
  for (let c = 0; c < cells; c++) sizes[c + 1]! += sizes[c]!;
  const offsets = sizes.slice();
  const fill = sizes.slice();
  const members = new Int32Array(usable.length);
  for (let i = 0; i < n; i++) if (cellOf[i]! >= 0) members[fill[cellOf[i]!]!++] = i;
  return { ivf: { cells, centroids, offsets }, members };
}

function nearestCell(centroids: Float32Array, cells: number, v: Float32Array, off: number, f: number): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < cells; c++) {
    let s = 0;
    const co = c * f;
    for (let k = 0; k < f; k++) s += centroids[co + k]! * v[off + k]!;
    if (s > bestScore) {
      bestScore = s;
      best = c;
    }
  }
  return best;
}
