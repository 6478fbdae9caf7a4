/**
 * The item-vector scan in WebAssembly SIMD: the int8 codes of a run of rows dotted with a float32 query, four
 * lanes at a time. The same scan in JavaScript costs about 100 ns a row (64 factors); this is several times
 * less, and it is most of a `personalized` or `similar` request. The module is a few hundred bytes, written
 * out below (no toolchain): one function, `scores(codes, from, to, out, f, query)`, over an imported memory.
 */
import type { Model } from "../training/model.js";

const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
/** SIMD sub-opcodes as LEB128 bytes. */
const V128_LOAD = [0x00];
const V128_LOAD8X8_S = [0x01];
const F32X4_SPLAT = [0x13];
const F32X4_EXTRACT_LANE = [0x1f];
const I32X4_EXTEND_LOW_I16X8_S = [0xa7, 0x01];
const I32X4_EXTEND_HIGH_I16X8_S = [0xa8, 0x01];
const F32X4_CONVERT_I32X4_S = [0xfa, 0x01];
const F32X4_ADD = [0xe4, 0x01];
const F32X4_MUL = [0xe6, 0x01];

const simd = (op: number[], ...immediates: number[]) => [SIMD, ...op, ...immediates];
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
const i32Const = (v: number) => [0x41, v]; // small non-negative values only (one LEB byte)
const F32_ZERO = [0x43, 0, 0, 0, 0];
const [I32_ADD, I32_SUB, I32_MUL, I32_SHL, I32_LT_U, I32_GE_U, F32_ADD] = [[0x6a], [0x6b], [0x6c], [0x74], [0x49], [0x4f], [0x92]];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const F32_STORE = [0x38, 0x02, 0x00];

// Parameters 0-5: codes, from, to, out, f, query (byte addresses and counts); locals 6-8 i32, 9-11 v128.
const [CODES, FROM, TO, OUT, F, QUERY, ROW, P, K, ACC0, ACC1, W] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

/** acc = acc + float(extend(w half)) * query[k + lane…] (the query's floats at byte offset `offset`). */
const accumulate = (acc: number, extend: number[], offset: number) => [
  ...get(acc),
  ...get(W), ...simd(extend), ...simd(F32X4_CONVERT_I32X4_S),
  ...get(QUERY), ...get(K), ...i32Const(2), ...I32_SHL, ...I32_ADD, ...simd(V128_LOAD, 0x00, offset),
  ...simd(F32X4_MUL), ...simd(F32X4_ADD), ...set(acc),
];

const BODY = [
  ...get(FROM), ...set(ROW),
  ...BLOCK, ...LOOP,
  ...get(ROW), ...get(TO), ...I32_GE_U, ...brIf(1),
  ...get(CODES), ...get(ROW), ...get(F), ...I32_MUL, ...I32_ADD, ...set(P),
  ...F32_ZERO, ...simd(F32X4_SPLAT), ...set(ACC0),
  ...F32_ZERO, ...simd(F32X4_SPLAT), ...set(ACC1),
  ...i32Const(0), ...set(K),
  ...LOOP,
  ...get(P), ...get(K), ...I32_ADD, ...simd(V128_LOAD8X8_S, 0x00, 0x00), ...set(W),
  ...accumulate(ACC0, I32X4_EXTEND_LOW_I16X8_S, 0),
  ...accumulate(ACC1, I32X4_EXTEND_HIGH_I16X8_S, 16),
  ...get(K), ...i32Const(8), ...I32_ADD, ...tee(K), ...get(F), ...I32_LT_U, ...brIf(0),
  ...END,
  ...get(OUT), ...get(ROW), ...get(FROM), ...I32_SUB, ...i32Const(2), ...I32_SHL, ...I32_ADD,
  ...get(ACC0), ...get(ACC1), ...simd(F32X4_ADD), ...tee(ACC0), ...simd(F32X4_EXTRACT_LANE, 0),
  ...get(ACC0), ...simd(F32X4_EXTRACT_LANE, 1), ...F32_ADD,
  ...get(ACC0), ...simd(F32X4_EXTRACT_LANE, 2), ...F32_ADD,
  ...get(ACC0), ...simd(F32X4_EXTRACT_LANE, 3), ...F32_ADD,
  ...F32_STORE,
  ...get(ROW), ...i32Const(1), ...I32_ADD, ...set(ROW),
  ...br(0),
  ...END, ...END,
  ...END,
];

const leb = (n: number): number[] => {
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

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const locals = [0x02, 0x03, I32, 0x03, V128];
  const body = [...locals, ...BODY];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x06, I32, I32, I32, I32, I32, I32, 0x00]),
    ...section(2, [0x01, ...name("env"), ...name("memory"), 0x02, 0x00, 0x01]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, ...name("scores"), 0x00, 0x00]),
    ...section(10, [0x01, ...leb(body.length), ...body]),
  ]);
}

/** Compiled once per thread; undefined where WebAssembly SIMD is missing (the JavaScript scan is used). */
const MODULE: WebAssembly.Module | undefined = (() => {
  try {
    return new WebAssembly.Module(moduleBytes());
  } catch {
    return undefined;
  }
})();

const PAGE = 65_536;
const align16 = (n: number) => (n + 15) & ~15;

/** One model's codes in wasm memory, with room for a query and one score per row. */
export class SimdScorer {
  private readonly query: Float32Array;
  /** Scores of the last scan: out[i] is row `from + i`'s dot product with the query (unscaled). */
  readonly out: Float32Array;
  private readonly run: (codes: number, from: number, to: number, out: number, f: number, query: number) => void;
  private readonly queryAt: number;
  private readonly outAt: number;

  /** The codes' new home: the model reads them from wasm memory from now on (one copy, not two). */
  readonly codes: Int8Array;

  private constructor(module: WebAssembly.Module, codes: Int8Array, private readonly f: number) {
    const rows = codes.length / f;
    this.queryAt = align16(codes.length);
    this.outAt = align16(this.queryAt + f * 4);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((this.outAt + rows * 4) / PAGE) });
    this.codes = new Int8Array(memory.buffer, 0, codes.length);
    this.codes.set(codes);
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    this.run = instance.exports.scores as SimdScorer["run"];
    this.query = new Float32Array(memory.buffer, this.queryAt, f);
    this.out = new Float32Array(memory.buffer, this.outAt, rows);
  }

  /**
   * A scorer for the model, which then reads its codes from the scorer's memory; undefined where SIMD is
   * missing or the factor count is not a multiple of 8.
   */
  static adopt(model: Model): SimdScorer | undefined {
    const f = model.params.factors;
    if (!MODULE || f % 8 !== 0 || model.itemCodes.length === 0) return undefined;
    const scorer = new SimdScorer(MODULE, model.itemCodes, f);
    model.itemCodes = scorer.codes;
    return scorer;
  }

  /** A scorer over codes of its own (copied), such as quantized IVF centroids. */
  static over(codes: Int8Array, f: number): SimdScorer | undefined {
    if (!MODULE || f % 8 !== 0 || codes.length === 0) return undefined;
    return new SimdScorer(MODULE, codes, f);
  }

  setQuery(q: Float64Array): void {
    this.query.set(q);
  }

  /** Fills out[0 .. to - from) with the dot products of rows [from, to) and the query. */
  scan(from: number, to: number): void {
    this.run(0, from, to, this.outAt, this.f, this.queryAt);
  }
}
