/**
 * JSON text with what JSON.stringify cannot write: verbatim fragments (`Raw`: 1e309, NaN, deep nesting) and
 * objects that repeat a key (`DupKeys`).
 */
export class Raw {
  constructor(readonly text: string) {}
}

export class DupKeys {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

export function toJsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof DupKeys) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** Deep copy of plain JSON values (the examples hold nothing else). */
export function cloneJson<T>(v: T): T {
  return structuredClone(v);
}

/** A place in a JSON tree: the container and the key of the value there (the root has no container). */
export interface Slot {
  parent: Record<string, unknown> | unknown[] | undefined;
  key: string | number;
  value: unknown;
}

/** Every slot of the tree, the root first. */
export function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: undefined, key: "", value: root }];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v, key: i, value: x }), walk(x)));
    else if (v !== null && typeof v === "object" && !(v instanceof Raw) && !(v instanceof DupKeys)) {
      for (const [k, x] of Object.entries(v)) {
        out.push({ parent: v as Record<string, unknown>, key: k, value: x });
        walk(x);
      }
    }
  };
  walk(root);
  return out;
}

/** Puts `value` in the slot; returns the (possibly new) root. */
export function replaceAt(root: unknown, s: Slot, value: unknown): unknown {
  if (s.parent === undefined) return value;
  (s.parent as Record<string | number, unknown>)[s.key] = value;
  return root;
}
