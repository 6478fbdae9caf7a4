/** Mutations of a CSV upload: quoting, columns, line ends, sizes, the header itself. */
import type { Prng } from "./prng.js";

/** Changes `lines` in place (the body is then their join), or returns the whole body. */
type CsvMutator = (rng: Prng, lines: string[]) => string | void;

const join = (lines: string[]) => lines.join("\n") + "\n";
const rowAt = (rng: Prng, lines: string[]) => rng.int(1, Math.max(1, lines.length - 1));

const MUTATORS: Array<readonly [string, CsvMutator]> = [
  [
    "unbalanced-quote",
    (rng, lines) => {
      const i = rowAt(rng, lines);
      lines[i] = `"${lines[i]}`;
    },
  ],
  [
    "quoted-newlines",
    (rng, lines) => {
      const i = rowAt(rng, lines);
      const cells = lines[i].split(",");
      cells[cells.length - 1] = `"multi\nline ""quoted"", cell"`;
      lines[i] = cells.join(",");
    },
  ],
  ["extra-cells", (rng, lines) => void (lines[rowAt(rng, lines)] += ",extra,cells,beyond")],
  [
    "missing-cells",
    (rng, lines) => {
      const i = rowAt(rng, lines);
      lines[i] = lines[i].split(",").slice(0, 1).join(",");
    },
  ],
  ["header-missing-column", (_rng, lines) => void (lines[0] = lines[0].split(",").slice(1).join(","))],
  ["header-repeated-column", (_rng, lines) => void (lines[0] += "," + lines[0].split(",")[0])],
  ["header-odd-names", (rng, lines) => void (lines[0] += rng.pick([",__proto__", ",", ",constructor", ',"quoted,name"', ", spaced "]))],
  ["header-only", (_rng, lines) => join(lines.slice(0, 1))],
  ["empty", () => ""],
  ["crlf", (_rng, lines) => lines.join("\r\n") + "\r\n"],
  ["cr-only", (_rng, lines) => lines.join("\r") + "\r"],
  ["no-final-newline", (_rng, lines) => lines.join("\n")],
  ["bom", (_rng, lines) => "\ufeff" + join(lines)],
  ["blank-lines", (_rng, lines) => lines.join("\n\n\n") + "\n\n"],
  [
    "huge-cell",
    (rng, lines) => {
      const i = rowAt(rng, lines);
      lines[i] += "," + "h".repeat(rng.pick([100_000, 1_100_000]));
      lines[0] += ",huge";
    },
  ],
  [
    "many-columns",
    (rng, lines) => {
      const n = rng.pick([1000, 20_000]);
      lines[0] += Array.from({ length: n }, (_, k) => `,c${k}`).join("");
      for (let i = 1; i < lines.length; i++) lines[i] += ",1".repeat(n);
    },
  ],
  [
    "many-rows",
    (rng, lines) => {
      const n = rng.pick([10_000, 60_000]);
      const row = lines[1] ?? "";
      return join([lines[0], ...Array.from({ length: n }, () => row)]);
    },
  ],
  [
    "cell-values",
    (rng, lines) => {
      const i = rowAt(rng, lines);
      const cells = lines[i].split(",");
      cells[rng.int(0, cells.length - 1)] = rng.pick([
        "",
        "007",
        "1e999",
        "-0",
        "NaN",
        "nul\u0000",
        "\ud800",
        "😀".repeat(129),
        "i".repeat(257),
        "0001-01-01T00:00:00+14:00",
        "x,y",
      ]);
      lines[i] = cells.join(",");
    },
  ],
];

export function mutateCsv(rng: Prng, body: Buffer): { kind: string; body: Buffer } {
  const lines = body.toString("utf8").replace(/\n$/, "").split("\n");
  const [name, mutate] = rng.pick(MUTATORS);
  return { kind: `csv.${name}`, body: Buffer.from(mutate(rng, lines) ?? join(lines)) };
}
