/**
 * The item-vector scan in WebAssembly SIMD: the int8 codes of a run of rows dotted with the query quantized to
 * int16, eight products per instruction (i32x4.dot_i16x8_s); each row's dot is then scaled, and only the rows
 * that reach a threshold (the caller's current k-th best) are written out. The same scan in JavaScript costs
 * about 100 ns a row (64 factors), this one about 4.3 ns, and the JavaScript loop after it sees only the rows
 * that can enter the top k.
 * The module is a few hundred bytes, written out below (no toolchain) for each factor count in use: one
 * function over an imported memory, `scores(codes, from, to, query, scales, queryScale, atLeast, outRows,
 * outScores) → count`.
 */
import type { Model } from "../training/model.js";
import { compiled, F64, I32, leb, V128 } from "../wasm/module.js";

const SIMD = 0xfd;
/** SIMD sub-opcodes as LEB128 bytes. */
const V128_LOAD = [0x00];
const V128_LOAD8X8_S = [0x01];
const I8X16_SHUFFLE = [0x0d];
const I32X4_EXTRACT_LANE = [0x1b];
const I32X4_ADD = [0xae, 0x01];
const I32X4_DOT_I16X8_S = [0xba, 0x01];

const simd = (op: number[], ...immediates: number[]) => [SIMD, ...op, ...immediates];
/** A load's alignment hint (none) and its constant offset. */
const memarg = (offset: number) => [0x00, ...leb(offset)];
const get = (i: number) => [0x20, ...leb(i)];
const set = (i: number) => [0x21, ...leb(i)];
const [I32_ADD, I32_MUL, I32_SHL, I32_GE_U] = [[0x6a], [0x6c], [0x74], [0x4f]];
const [F64_CONVERT_I32_S, F64_PROMOTE_F32, F64_MUL, F64_GE] = [[0xb7], [0xbb], [0xa2], [0x66]];
const F32_LOAD = [0x2a, 0x02, 0x00];
const I32_STORE = [0x36, 0x02, 0x00];
const F64_STORE = [0x39, 0x03, 0x00];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];

/** i32.const of a non-negative value (signed LEB128: a set seventh bit in the last byte would read as negative). */
function i32Const(v: number): number[] {
  const bytes = leb(v);
  if ((bytes[bytes.length - 1]! & 0x40) !== 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(0x00);
  }
  return [0x41, ...bytes];
}

/** i8x16.shuffle of the two vectors on the stack (the same one twice here) that moves the upper `bytes` down. */
const foldDown = (bytes: number) => simd(I8X16_SHUFFLE, ...Array.from({ length: 16 }, (_, i) => (i + bytes) % 16));

// Parameters 0-8 (byte addresses and counts, two f64); locals 9-11 i32, 12-13 v128, 14 f64, then the query as
// f/8 v128 from 15 on (loaded once per call, so that each row reads only its own codes).
const [CODES, FROM, TO, QUERY, SCALES, QUERY_SCALE, AT_LEAST, OUT_ROWS, OUT_SCORES] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const [ROW, P, COUNT, ACC, ACC2, SCORE, Q0] = [9, 10, 11, 12, 13, 14, 15];

/** dot(codes[p + 8i .. +8) widened to int16, query part i): eight factors' products, summed in pairs. */
const dot = (i: number) => [...get(P), ...simd(V128_LOAD8X8_S, ...memarg(8 * i)), ...get(Q0 + i), ...simd(I32X4_DOT_I16X8_S)];

/**
 * The scan for f factors (a multiple of 16), unrolled: a row is f/8 dot instructions into two accumulators
 * (two chains in flight) whose lanes two shuffles sum; no inner loop and no query load per row. Against one
 * loop for every f that read the query each turn: 4.1-4.4 ns a row instead of 5.7-6.1 (64 factors).
 */
function body(f: number): number[] {
  const parts = f / 8;
  const loadQuery = Array.from({ length: parts }, (_, i) => [...get(QUERY), ...simd(V128_LOAD, ...memarg(16 * i)), ...set(Q0 + i)]).flat();
  const rowDot = [...dot(0), ...set(ACC), ...dot(1), ...set(ACC2)];
  for (let i = 2; i < parts; i++) {
    const acc = i % 2 === 0 ? ACC : ACC2;
    rowDot.push(...get(acc), ...dot(i), ...simd(I32X4_ADD), ...set(acc));
  }
  return [
    ...loadQuery,
    ...get(FROM),
    ...set(ROW),
    ...get(CODES),
    ...get(FROM),
    ...i32Const(f),
    ...I32_MUL,
    ...I32_ADD,
    ...set(P),
    ...BLOCK,
    ...LOOP,
    ...get(ROW),
    ...get(TO),
    ...I32_GE_U,
    ...brIf(1),
    ...rowDot,
    // score = (sum of the four lanes) × queryScale × scales[row]
    ...get(ACC),
    ...get(ACC2),
    ...simd(I32X4_ADD),
    ...set(ACC),
    ...get(ACC),
    ...get(ACC),
    ...get(ACC),
    ...foldDown(8),
    ...simd(I32X4_ADD),
    ...set(ACC),
    ...get(ACC),
    ...get(ACC),
    ...get(ACC),
    ...foldDown(4),
    ...simd(I32X4_ADD),
    ...simd(I32X4_EXTRACT_LANE, 0),
    ...F64_CONVERT_I32_S,
    ...get(QUERY_SCALE),
    ...F64_MUL,
    ...get(SCALES),
    ...get(ROW),
    ...i32Const(2),
    ...I32_SHL,
    ...I32_ADD,
    ...F32_LOAD,
    ...F64_PROMOTE_F32,
    ...F64_MUL,
    ...set(SCORE),
    // Written at `count` always, kept (count + 1) only when it reaches the threshold: no branch to mispredict.
    ...get(OUT_ROWS),
    ...get(COUNT),
    ...i32Const(2),
    ...I32_SHL,
    ...I32_ADD,
    ...get(ROW),
    ...I32_STORE,
    ...get(OUT_SCORES),
    ...get(COUNT),
    ...i32Const(3),
    ...I32_SHL,
    ...I32_ADD,
    ...get(SCORE),
    ...F64_STORE,
    ...get(COUNT),
    ...get(SCORE),
    ...get(AT_LEAST),
    ...F64_GE,
    ...I32_ADD,
    ...set(COUNT),
    ...get(ROW),
    ...i32Const(1),
    ...I32_ADD,
    ...set(ROW),
    ...get(P),
    ...i32Const(f),
    ...I32_ADD,
    ...set(P),
    ...br(0),
    ...END,
    ...END,
    ...get(COUNT),
  ];
}

/** Compiled once per thread and factor count; null where WebAssembly SIMD is missing (the JavaScript scan is used). */
const modules = new Map<number, WebAssembly.Module | null>();

function moduleFor(f: number): WebAssembly.Module | undefined {
  if (f % 16 !== 0) return undefined;
  let module = modules.get(f);
  if (module === undefined) {
    module =
      compiled({
        exportName: "scores",
        params: [I32, I32, I32, I32, I32, F64, F64, I32, I32],
        result: I32,
        // Locals: three i32, two v128, one f64, and f/8 v128 for the query.
        body: [0x04, 0x03, I32, 0x02, V128, 0x01, F64, ...leb(f / 8), V128, ...body(f)],
      }) ?? null;
    modules.set(f, module);
  }
  return module ?? undefined;
}

type Run = (
  codes: number,
  from: number,
  to: number,
  query: number,
  scales: number,
  queryScale: number,
  atLeast: number,
  outRows: number,
  outScores: number,
) => number;

const PAGE = 65_536;
const INT16_MAX = 32_767;
const align16 = (n: number) => (n + 15) & ~15;

/**
 * Rows of int8 codes in wasm memory with one or more sets of per-row scales (row r's score under set s is
 * codes_r · query × scales_s[r]), and room for the query and for every row as a result.
 */
export class SimdScorer {
  /** The codes' new home: the model reads them from wasm memory from now on (one copy, not two). */
  readonly codes: Int8Array;
  /** The scale sets, likewise in wasm memory. */
  readonly scales: Float32Array[];
  /** After `scan`: the rows that reached the threshold, and their scores, in row order. */
  readonly rows: Int32Array;
  readonly scores: Float64Array;
  private readonly query: Int16Array;
  private queryScale = 0;
  private readonly run: Run;
  private readonly queryAt: number;
  private readonly scalesAt: number[];
  private readonly rowsAt: number;
  private readonly scoresAt: number;

  private constructor(
    module: WebAssembly.Module,
    codes: Int8Array,
    scaleSets: Float32Array[],
    private readonly f: number,
  ) {
    const rows = codes.length / f;
    this.queryAt = align16(codes.length);
    this.scalesAt = scaleSets.map((_, s) => align16(this.queryAt + f * 2) + s * align16(rows * 4));
    this.rowsAt = align16(this.queryAt + f * 2) + scaleSets.length * align16(rows * 4);
    this.scoresAt = this.rowsAt + align16(rows * 4);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((this.scoresAt + rows * 8) / PAGE) });
    this.codes = new Int8Array(memory.buffer, 0, codes.length);
    this.codes.set(codes);
    this.scales = scaleSets.map((s, i) => {
      const inWasm = new Float32Array(memory.buffer, this.scalesAt[i]!, rows);
      inWasm.set(s);
      return inWasm;
    });
    this.run = new WebAssembly.Instance(module, { env: { memory } }).exports.scores as Run;
    this.query = new Int16Array(memory.buffer, this.queryAt, f);
    this.rows = new Int32Array(memory.buffer, this.rowsAt, rows);
    this.scores = new Float64Array(memory.buffer, this.scoresAt, rows);
  }

  /**
   * A scorer for the model's item rows, scale set 0 its itemScales (dot products) and 1 its cosineScales; the
   * model then reads codes and scales from the scorer's memory. Undefined where SIMD is missing or the factor
   * count is not a multiple of 16.
   */
  static adopt(model: Model): SimdScorer | undefined {
    const f = model.params.factors;
    const module = moduleFor(f);
    if (!module || model.itemCodes.length === 0) return undefined;
    const scorer = new SimdScorer(module, model.itemCodes, [model.itemScales, model.cosineScales], f);
    model.itemCodes = scorer.codes;
    [model.itemScales, model.cosineScales] = scorer.scales as [Float32Array, Float32Array];
    return scorer;
  }

  /** A scorer over codes and one scale set of its own (copied), such as quantized IVF centroids. */
  static over(codes: Int8Array, scales: Float32Array, f: number): SimdScorer | undefined {
    const module = moduleFor(f);
    if (!module || codes.length === 0) return undefined;
    return new SimdScorer(module, codes, [scales], f);
  }

  /** The query, as int16 codes and one scale (its largest component maps to 32,767). */
  setQuery(q: Float64Array): void {
    let max = 0;
    for (let k = 0; k < this.f; k++) max = Math.max(max, Math.abs(q[k]!));
    this.queryScale = max / INT16_MAX;
    const toCode = max === 0 ? 0 : INT16_MAX / max;
    for (let k = 0; k < this.f; k++) this.query[k] = Math.round(q[k]! * toCode);
  }

  /** The query another scorer of as many factors was set to, without quantizing it again. */
  setQueryOf(other: SimdScorer): void {
    this.query.set(other.query);
    this.queryScale = other.queryScale;
  }

  /** Scores rows [from, to) under scale set `scaleSet`; those scoring `atLeast` or more go to rows/scores. Returns their count. */
  scan(from: number, to: number, scaleSet: number, atLeast: number): number {
    return this.run(0, from, to, this.queryAt, this.scalesAt[scaleSet]!, this.queryScale, atLeast, this.rowsAt, this.scoresAt);
  }
}
