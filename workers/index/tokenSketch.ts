/**
 * Bottom-k sketches of token sets (Broder 1997; Cohen & Kaplan 2007): an item keeps the k smallest hashes of
 * its tokens, sorted. Below k tokens the sketch is the whole set and Jaccard similarity from it is exact; above,
 * the k smallest hashes of the union of two sketches are a uniform sample of the union, and the share of them
 * in both sketches estimates the Jaccard similarity (standard error about sqrt(J(1-J)/k)). Either way one
 * comparison is a merge of two sorted runs of at most k: bounded whatever an item's attributes hold.
 */

/** Hashes kept per item: an error of at most 1/16 on Jaccard similarity for large sets, 256 bytes an item. */
export const SKETCH_SIZE = 64;

/**
 * Sorts hashes[0, n) and moves its distinct values, at most k of them, the smallest first, to hashes[0, m):
 * returns m.
 */
export function bottomK(hashes: Uint32Array, n: number, k: number): number {
  const sorted = hashes.subarray(0, n).sort();
  let m = 0;
  for (let i = 0; i < n && m < k; i++) if (m === 0 || sorted[i] !== sorted[m - 1]) sorted[m++] = sorted[i]!;
  return m;
}

/**
 * Jaccard similarity of two sets from their sketches a[fromA, fromA + na) and b[fromB, fromB + nb), each
 * sorted ascending; `whole` says both sketches hold their entire set (fewer than k distinct tokens), and
 * the answer is then exact. `steps` receives the number of merge steps taken (at most 2k).
 */
export function sketchJaccard(
  a: Uint32Array,
  fromA: number,
  na: number,
  b: Uint32Array,
  fromB: number,
  nb: number,
  whole: boolean,
  k: number,
  steps: { n: number },
): number {
  if (na === 0 || nb === 0) return 0;
  const endA = fromA + na;
  const endB = fromB + nb;
  // A partial sketch may only be compared below its largest hash: the union's k smallest are all there.
  const limit = whole ? na + nb : k;
  let i = fromA;
  let j = fromB;
  let union = 0;
  let both = 0;
  while (union < limit && (i < endA || j < endB)) {
    union++;
    if (j >= endB || (i < endA && a[i]! < b[j]!)) i++;
    else if (i >= endA || b[j]! < a[i]!) j++;
    else {
      both++;
      i++;
      j++;
    }
  }
  steps.n += union;
  return both / union;
}

/** The readable twin: Jaccard similarity of two sets, |A ∩ B| / |A ∪ B| (0 when either is empty). */
export function exactJaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both);
}
