/** Typed arrays indexed by a dense id that grow as ids are interned (capacity doubles). */
type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

export function ensureLength<T extends Typed>(a: T, n: number, fill = 0): T {
  if (n <= a.length) return a;
  let size = Math.max(a.length, 1024);
  while (size < n) size *= 2;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a as never);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}
