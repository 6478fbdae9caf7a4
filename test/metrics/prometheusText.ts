/** One line of Prometheus' text format: `name{label="value",...} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family name → its # TYPE. */
  types: Map<string, string>;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
const TYPE_LINE = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/;
const HELP_LINE = /^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/;
const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

/**
 * Reads text exposition format 0.0.4 strictly: a line it cannot read throws, as does a sample whose metric
 * family has no # TYPE before it. A test that gets samples back got valid text.
 */
export function parsePrometheusText(text: string): Exposition {
  if (!text.endsWith("\n")) throw new Error("exposition must end with a newline");
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "" || HELP_LINE.test(line)) continue;
    const type = TYPE_LINE.exec(line);
    if (type) {
      if (types.has(type[1])) throw new Error(`second # TYPE for ${type[1]}`);
      types.set(type[1], type[2]);
      continue;
    }
    const m = SAMPLE_LINE.exec(line);
    if (!m) throw new Error(`unreadable line: ${JSON.stringify(line)}`);
    const [, name, labelText, valueText] = m;
    const family = types.has(name) ? name : name.replace(HISTOGRAM_SUFFIX, "");
    if (!types.has(family)) throw new Error(`sample before its # TYPE: ${line}`);
    samples.push({ name, labels: labelText === undefined ? {} : parseLabels(labelText, line), value: parseValue(valueText, line) });
  }
  return { samples, types };
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL_PAIR.lastIndex = 0;
  while (LABEL_PAIR.lastIndex < text.length) {
    const m = LABEL_PAIR.exec(text);
    if (!m) throw new Error(`unreadable labels: ${line}`);
    labels[m[1]] = m[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

/** Values are read as Go's ParseFloat reads them (the format says so): NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  const special = text.toLowerCase();
  if (special === "+inf" || special === "inf") return Infinity;
  if (special === "-inf") return -Infinity;
  if (special === "nan") return NaN;
  const v = Number(text);
  if (text === "" || Number.isNaN(v)) throw new Error(`unreadable value: ${line}`);
  return v;
}

/** The value of the sample with exactly these labels; 0 when there is none (a counter not yet counted). */
export function valueOf(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels);
  const s = e.samples.find((x) => x.name === name && Object.keys(x.labels).length === want.length && want.every(([k, v]) => x.labels[k] === v));
  return s?.value ?? 0;
}

/** Every sample of `name` (with any labels). */
export function samplesOf(e: Exposition, name: string): Sample[] {
  return e.samples.filter((s) => s.name === name);
}
