/**
 * A seeded PRNG (mulberry32), so that training (ALS's first vectors, EASE's validation splits, IVF's seeds) and
 * the synthetic data of tests and benchmarks are repeatable.
 */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
