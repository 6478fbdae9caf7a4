import { AttributeIndex, type Attributes } from "./attributeIndex.js";
import { ensureLength } from "./growable.js";
import { Interner } from "./interner.js";
import { TextArena } from "./textArena.js";

export const STATUS = { unknown: 0, active: 1, inactive: 2, deleted: 3 } as const;
const STATUS_CODE: Record<string, number> = { active: 1, inactive: 2, deleted: 3 };

/**
 * The organisation's items by interned id: type, status and creation time in typed arrays; attributes kept as
 * parsed objects because filters and metadata read them, but only for the candidates a request looks at.
 * Items that appear in events before their upsert are interned with status unknown and never served.
 */
export class Catalog {
  readonly ids = new Interner();
  readonly types = new Interner();
  type = new Int32Array(1024).fill(-1);
  status = new Uint8Array(1024);
  createdS = new Float64Array(1024);
  readonly attributes: (Attributes | undefined)[] = [];
  /** Each served item's answer text around its score and reason (see strategies/page.ts), until it changes. */
  readonly rendered = new TextArena();
  readonly tokens = new AttributeIndex();
  /** Bumped on every change that can alter which items are eligible or how they are ordered by creation. */
  version = 0;

  get size(): number {
    return this.ids.size;
  }

  intern(itemId: string): number {
    const i = this.ids.intern(itemId);
    this.grow(i + 1);
    return i;
  }

  /** intern() for an id given as UTF-8 bytes (in a packed batch). */
  internBytes(bytes: Uint8Array, at: number, n: number): number {
    const i = this.ids.internBytes(bytes, at, n);
    this.grow(i + 1);
    return i;
  }

  upsert(itemId: string, itemType: string, status: string, attributes: Attributes, createdS: number | null): number {
    const i = this.intern(itemId);
    this.type[i] = this.types.intern(itemType);
    this.status[i] = STATUS_CODE[status] ?? STATUS.unknown;
    if (createdS !== null) this.createdS[i] = createdS;
    else if (this.createdS[i] === 0) this.createdS[i] = Date.now() / 1000;
    this.attributes[i] = attributes;
    this.rendered.drop(i);
    this.tokens.set(i, attributes);
    this.version++;
    return i;
  }

  isActive(i: number): boolean {
    return this.status[i] === STATUS.active;
  }

  /** `fields`: attribute names to copy (all when undefined); `item_type` is always included. */
  metadata(i: number, fields: string[] | undefined): Attributes {
    const attrs = this.attributes[i] ?? {};
    const out: Attributes = {};
    if (fields) {
      for (const f of fields) if (Object.hasOwn(attrs, f)) out[f] = attrs[f];
    } else {
      Object.assign(out, attrs);
    }
    out.item_type = this.type[i]! >= 0 ? this.types.name(this.type[i]!) : null;
    return out;
  }

  private grow(n: number): void {
    if (n <= this.status.length) return;
    this.type = ensureLength(this.type, n, -1);
    this.status = ensureLength(this.status, n);
    this.createdS = ensureLength(this.createdS, n);
  }
}
