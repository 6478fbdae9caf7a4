// Charts drawn as SVG by hand: no library, nothing fetched from elsewhere (the page's CSP allows its own files
// only). Each chart is an image with a title and a description for screen readers; the numbers it draws are
// also in a table on the same page. Colours come from classes (style.css), so the legend and the lines agree.

const SVG = "http://www.w3.org/2000/svg";
/** Distinct series colours (style.css .s0 … .s9); more series than this reuse them with a dashed line. */
const PALETTE = 10;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}

function titled(tag, attrs, title, ...children) {
  return svg(tag, attrs, svg("title", {}, title), ...children);
}

/**
 * The axis's top: four steps of a round size (1, 2, 2.5 or 5 times a power of ten) reaching `max`; whole steps
 * of at least 1 for counts, so that no two gridlines read the same number.
 */
export function axisTop(max, { counts = false } = {}) {
  const wanted = max > 0 ? max / 4 : 0.25;
  const power = 10 ** Math.floor(Math.log10(wanted));
  let step = 10 * power;
  for (const k of counts ? [1, 2, 5] : [1, 2, 2.5, 5]) {
    if (k * power >= wanted) {
      step = k * power;
      break;
    }
  }
  return 4 * (counts ? Math.max(1, step) : step);
}

/** How many labels fit on an axis `width` pixels long, `apart` pixels apart, out of `count`: every k-th. */
function labelStep(count, width, apart) {
  return Math.max(1, Math.ceil(count / Math.max(1, Math.floor(width / apart))));
}

/**
 * A line chart: `labels` along the bottom, one line per series (`values` aligned with `labels`; null leaves a
 * gap, as a rate of nothing served). `format` writes a value for the axis and the points' titles.
 * Returns a <figure> holding the SVG and its legend.
 */
export function lineChart({ title, description, labels, series, format, width = 640, height = 220, ratio = false }) {
  const pad = { top: 12, right: 16, bottom: 28, left: width < 480 ? 48 : 60 };
  const w = width - pad.left - pad.right;
  const h = height - pad.top - pad.bottom;
  const all = series.flatMap((s) => s.values).filter((v) => v !== null && Number.isFinite(v));
  const top = ratio ? Math.min(1, axisTop(Math.max(0, ...all))) : axisTop(Math.max(0, ...all), { counts: true });
  const x = (i) => pad.left + (labels.length <= 1 ? w / 2 : (i * w) / (labels.length - 1));
  const y = (v) => pad.top + h - (v / top) * h;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) =>
    svg(
      "g",
      { class: "grid" },
      svg("line", { x1: pad.left, x2: pad.left + w, y1: y(top * f), y2: y(top * f) }),
      svg("text", { x: pad.left - 6, y: y(top * f) + 4, "text-anchor": "end" }, format(top * f)),
    ),
  );
  const step = labelStep(labels.length, w, width < 480 ? 70 : 90);
  // A label near either edge is anchored to stay inside the picture.
  const anchor = (at) => (at < pad.left + 30 ? "start" : at > pad.left + w - 30 ? "end" : "middle");
  const ticks = labels.map((label, i) =>
    i % step === 0
      ? svg("text", { class: "tick", x: x(i), y: height - 8, "text-anchor": labels.length <= 1 ? "middle" : anchor(x(i)) }, label)
      : null,
  );
  const lines = series.map((s, k) => {
    let d = "";
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      d += `${pen ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    // Points carry their value as a title (hover). Dots are drawn where they can be told apart (and a value
    // between gaps would otherwise not show); on a dense line they are invisible, their titles still there.
    const dense = w / Math.max(1, labels.length) < 16;
    const points =
      labels.length <= 400
        ? s.values.map((v, i) => {
            if (v === null || !Number.isFinite(v)) return null;
            const alone = (s.values[i - 1] ?? null) === null && (s.values[i + 1] ?? null) === null;
            return titled(
              "circle",
              { cx: x(i), cy: y(v), r: dense && !alone ? 4 : 2.5, class: dense && !alone ? "hit" : undefined },
              `${s.name}, ${labels[i]}: ${format(v)}`,
            );
          })
        : [];
    return svg("g", { class: seriesClass(k) }, svg("path", { d, fill: "none" }), ...points.filter(Boolean));
  });
  const image = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "chart-svg" },
    svg("title", {}, title),
    svg("desc", {}, description),
    ...grid,
    ...ticks.filter(Boolean),
    ...lines,
  );
  return figure(
    title,
    image,
    series.map((s) => s.name),
  );
}

/**
 * Rates with their intervals, one row per entry: a bar to the rate and a whisker from `low` to `high`; the
 * control's interval is shaded across the rows so a reader sees at a glance which whiskers leave it.
 */
export function intervalChart({ title, description, rows, format, width = 640 }) {
  const rowH = 34;
  const labelW = width < 480 ? 84 : 130;
  const valueW = width < 480 ? 0 : 150;
  const pad = { top: 8, bottom: 24, right: 12 };
  const w = width - labelW - valueW - pad.right;
  const height = pad.top + rows.length * rowH + pad.bottom;
  const top = Math.min(1, axisTop(Math.max(0.0001, ...rows.map((r) => r.high))));
  const x = (v) => labelW + (v / top) * w;
  const control = rows.find((r) => r.control);
  const band = control
    ? [
        svg("rect", {
          class: "control-band",
          x: x(control.low),
          y: pad.top,
          width: Math.max(1, x(control.high) - x(control.low)),
          height: rows.length * rowH,
        }),
      ]
    : [];
  const axis = [0, 0.5, 1].map((f) =>
    svg(
      "g",
      { class: "grid" },
      svg("line", { x1: x(top * f), x2: x(top * f), y1: pad.top, y2: pad.top + rows.length * rowH }),
      svg("text", { x: x(top * f), y: height - 6, "text-anchor": f === 0 ? "start" : f === 1 ? "end" : "middle" }, format(top * f)),
    ),
  );
  const marks = rows.map((r, k) => {
    const mid = pad.top + k * rowH + rowH / 2;
    const text = `${r.label}: ${format(r.rate)}, 95 % interval ${format(r.low)} to ${format(r.high)}`;
    return titled(
      "g",
      { class: `interval ${seriesClass(k)}` },
      text,
      svg("text", { class: "row-label", x: labelW - 8, y: mid + 4, "text-anchor": "end" }, r.label),
      svg("rect", { class: "rate-bar", x: labelW, y: mid - 7, width: Math.max(0, x(r.rate) - labelW), height: 14 }),
      svg("line", { class: "whisker", x1: x(r.low), x2: x(r.high), y1: mid, y2: mid }),
      svg("line", { class: "whisker", x1: x(r.low), x2: x(r.low), y1: mid - 8, y2: mid + 8 }),
      svg("line", { class: "whisker", x1: x(r.high), x2: x(r.high), y1: mid - 8, y2: mid + 8 }),
      valueW > 0
        ? svg(
            "text",
            { class: "row-value", x: width - pad.right, y: mid + 4, "text-anchor": "end" },
            `${format(r.rate)} (${format(r.low)}–${format(r.high)})`,
          )
        : "",
    );
  });
  const image = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "chart-svg" },
    svg("title", {}, title),
    svg("desc", {}, description),
    ...band,
    ...axis,
    ...marks,
  );
  return figure(title, image, []);
}

export const seriesClass = (k) => `s${k % PALETTE}${k >= PALETTE ? " dashed" : ""}`;

function figure(title, image, names) {
  const fig = document.createElement("figure");
  fig.className = "chart-figure";
  const caption = document.createElement("figcaption");
  const heading = document.createElement("span");
  heading.className = "chart-title";
  heading.textContent = title;
  caption.append(heading);
  if (names.length > 0) {
    const legend = document.createElement("ul");
    legend.className = "legend";
    legend.setAttribute("aria-label", `${title}: legend`);
    names.forEach((name, k) => {
      const item = document.createElement("li");
      const swatch = document.createElement("span");
      swatch.className = `swatch ${seriesClass(k)}`;
      swatch.setAttribute("aria-hidden", "true");
      item.append(swatch, document.createTextNode(name));
      legend.append(item);
    });
    caption.append(legend);
  }
  // The SVG is named by its own <title>; the caption repeats it for sighted readers, with the legend.
  fig.append(caption, image);
  return fig;
}
