/**
 * A WebAssembly module of one function over an imported memory (`env.memory`), encoded by hand: the few
 * kernels the recommender threads run in WebAssembly are small enough that a toolchain would cost more than
 * it saves.
 */
export const I32 = 0x7f;
export const F64 = 0x7c;
export const V128 = 0x7b;

export const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

const name = (s: string) => [...leb(s.length), ...Buffer.from(s)];
const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];

export interface FunctionSpec {
  exportName: string;
  params: number[];
  /** The result type, or none. */
  result?: number;
  /** Local declarations (count, type pairs, already encoded) followed by the instructions, without the final `end`. */
  body: number[];
}

/** The module's bytes: one type, the imported memory, one exported function. */
export function moduleBytes(fn: FunctionSpec): Uint8Array<ArrayBuffer> {
  const body = [...fn.body, 0x0b];
  const results = fn.result === undefined ? [0x00] : [0x01, fn.result];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [0x01, 0x60, fn.params.length, ...fn.params, ...results]),
    ...section(2, [0x01, ...name("env"), ...name("memory"), 0x02, 0x00, 0x01]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, ...name(fn.exportName), 0x00, 0x00]),
    ...section(10, [0x01, ...leb(body.length), ...body]),
  ]);
}

/** The module compiled, or undefined where this engine rejects it (a feature it lacks). */
export function compiled(fn: FunctionSpec): WebAssembly.Module | undefined {
  try {
    return new WebAssembly.Module(moduleBytes(fn));
  } catch {
    return undefined;
  }
}
