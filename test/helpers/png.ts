import { crc32, deflateSync, inflateSync } from "node:zlib";

/**
 * A screenshot as an 8-bit palette PNG, for the pictures kept in the repository: Chromium writes 24-bit RGB, three
 * times the bytes for a page of a few flat colours. The palette is the 256 most used colours; every other colour
 * (the anti-aliased edges of text and lines) takes its nearest, which a reader does not see at 1:1.
 */
export function toPalettePng(png: Buffer): Buffer {
  const { width, height, colorType, data } = readPng(png);
  const bpp = colorType === 6 ? 4 : 3;
  const pixels = unfilter(data, width, height, bpp);
  const rgb = new Uint32Array(width * height);
  const uses = new Map<number, number>();
  for (let i = 0; i < rgb.length; i++) {
    const c = (pixels[i * bpp]! << 16) | (pixels[i * bpp + 1]! << 8) | pixels[i * bpp + 2]!;
    rgb[i] = c;
    uses.set(c, (uses.get(c) ?? 0) + 1);
  }
  const palette = [...uses]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 256)
    .map(([c]) => c);
  const index = new Map(palette.map((c, k) => [c, k]));
  const nearest = (c: number): number => {
    let best = 0;
    let bestDistance = Infinity;
    for (let k = 0; k < palette.length; k++) {
      const p = palette[k]!;
      const d = (((p >> 16) & 255) - ((c >> 16) & 255)) ** 2 + (((p >> 8) & 255) - ((c >> 8) & 255)) ** 2 + ((p & 255) - (c & 255)) ** 2;
      if (d < bestDistance) [best, bestDistance] = [k, d];
    }
    index.set(c, best);
    return best;
  };
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    rows[y * (width + 1)] = 0; // no filter: palette indices do not predict from their neighbours
    for (let x = 0; x < width; x++) {
      const c = rgb[y * width + x]!;
      rows[y * (width + 1) + 1 + x] = index.get(c) ?? nearest(c);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 3, 0, 0, 0], 8);
  const plte = Buffer.alloc(palette.length * 3);
  palette.forEach((c, k) => plte.set([(c >> 16) & 255, (c >> 8) & 255, c & 255], k * 3));
  return Buffer.concat([
    png.subarray(0, 8),
    chunk("IHDR", ihdr),
    chunk("PLTE", plte),
    chunk("IDAT", deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function readPng(png: Buffer): { width: number; height: number; colorType: number; data: Buffer } {
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString("ascii", at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      [width, height, colorType] = [body.readUInt32BE(0), body.readUInt32BE(4), body[9]!];
      if (body[8] !== 8 || (colorType !== 2 && colorType !== 6) || body[12] !== 0) throw new Error("only 8-bit, non-interlaced RGB(A) PNGs");
    }
    if (type === "IDAT") idat.push(body);
    at += 12 + length;
  }
  return { width, height, colorType, data: inflateSync(Buffer.concat(idat)) };
}

/** The pixels of PNG scanlines, each led by its filter type (PNG specification, section 9). */
function unfilter(data: Buffer, width: number, height: number, bpp: number): Buffer {
  const stride = width * bpp;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (stride + 1)]!;
    const line = data.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[y * stride + i - bpp]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + i]! : 0;
      const c = i >= bpp && y > 0 ? out[(y - 1) * stride + i - bpp]! : 0;
      let predicted = 0;
      if (filter === 1) predicted = a;
      else if (filter === 2) predicted = b;
      else if (filter === 3) predicted = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[y * stride + i] = (line[i]! + predicted) & 255;
    }
  }
  return out;
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}
