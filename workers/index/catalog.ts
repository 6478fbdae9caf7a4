import { type AttributeCaps, UNCAPPED } from "./attributeCaps.js";
import { AttributeIndex, type Attributes } from "./attributeIndex.js";
import { AttributeValues } from "./attributeValues.js";
import { ensureLength } from "./growable.js";
import { Interner } from "./interner.js";
import { itemHead, itemMetadata, METADATA_OPEN } from "./itemText.js";
import { projectFields } from "./metadataFields.js";
import { TextArena } from "./textArena.js";
import type { SnapshotReader, SnapshotWriter } from "./snapshotBytes.js";

export const STATUS = { unknown: 0, active: 1, inactive: 2, deleted: 3 } as const;
const STATUS_CODE: Record<string, number> = { active: 1, inactive: 2, deleted: 3 };
const NO_ATTRIBUTES: Attributes = {};

/**
 * The organisation's items by interned id: type, status and creation time in typed arrays. Attributes are not
 * kept as objects (a parsed tag list costs tens of times its JSON): each item's answer text, its attributes
 * included, is rendered at upsert into `rendered` (outside the JS heap), filters read `values`, and `similar`
 * reads `tokens`; a request naming `fields` parses the few answered items' attributes back from their text.
 * Items that appear in events before their upsert are interned with status unknown and never served.
 */
export class Catalog {
  readonly ids = new Interner();
  readonly types = new Interner();
  type = new Int32Array(1024).fill(-1);
  status = new Uint8Array(1024);
  createdS = new Float64Array(1024);
  /** Each item's answer text around its score and reason (see itemText.ts); its mark is where the head ends. */
  readonly rendered = new TextArena();
  readonly values = new AttributeValues();
  readonly tokens: AttributeIndex;
  /** Bytes kept for attributes: answer texts and filter values (what caps.maxBytes bounds). */
  attributeBytes = 0;
  /** Upserts whose attributes were not kept because the organisation reached caps.maxBytes. */
  attributesRefused = 0;
  /** Bumped on every change that can alter which items are eligible or how they are ordered by creation. */
  version = 0;

  constructor(private readonly caps: AttributeCaps = UNCAPPED) {
    this.tokens = new AttributeIndex(caps.maxTokens);
  }

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
    const before = this.rendered.length(i) + this.values.bytes(i);
    const head = itemHead(itemId);
    let text = head + itemMetadata(attributes, itemType);
    let kept = attributes;
    if (this.attributeBytes - before + Buffer.byteLength(text) > this.caps.maxBytes) {
      kept = NO_ATTRIBUTES;
      text = head + itemMetadata(kept, itemType);
      this.attributesRefused++;
    }
    this.rendered.set(i, text, Buffer.byteLength(head));
    this.values.set(i, kept);
    this.tokens.set(i, kept);
    this.attributeBytes += this.rendered.length(i) + this.values.bytes(i) - before;
    this.version++;
    return i;
  }

  /**
   * Only the ids, in their order (events name items by them); types, statuses and attributes are the items
   * table's, read at every load.
   */
  snapshotTo(w: SnapshotWriter): void {
    w.texts(this.ids.names);
  }

  restoreFrom(r: SnapshotReader): void {
    const names = r.texts();
    this.ids.restoreFrom(names);
    this.grow(names.length);
  }

  isActive(i: number): boolean {
    return this.status[i] === STATUS.active;
  }

  /**
   * The item's metadata as JSON text: every attribute and `item_type`, or only the attributes `fields` names
   * (with `item_type`), cut out of the item's text unparsed. Callers ask for a page's items, not for candidates.
   */
  metadataJson(i: number, fields: readonly string[] | undefined): string {
    const texts = this.rendered;
    if (!texts.has(i)) return '{"item_type":null}';
    const object = texts.text(i, texts.mark(i) + METADATA_OPEN.length, texts.length(i) - 1);
    return fields ? projectFields(object, fields) : object;
  }

  metadata(i: number, fields: readonly string[] | undefined): Attributes {
    return JSON.parse(this.metadataJson(i, fields)) as Attributes;
  }

  /** Gives an item never upserted (known from events only) the text of an item without attributes or type. */
  renderBare(i: number): void {
    if (this.rendered.has(i)) return;
    const head = itemHead(this.ids.name(i));
    this.rendered.set(i, head + itemMetadata(NO_ATTRIBUTES, null), Buffer.byteLength(head));
  }

  private grow(n: number): void {
    if (n <= this.status.length) return;
    this.type = ensureLength(this.type, n, -1);
    this.status = ensureLength(this.status, n);
    this.createdS = ensureLength(this.createdS, n);
  }
}
