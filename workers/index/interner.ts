/** String ids ↔ dense integer ids (0, 1, 2, …), so that the index works on typed arrays. */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];

  get size(): number {
    return this.names.length;
  }

  /** The integer id of `name`, or -1 when it was never seen. */
  find(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  /** The integer id of `name`, assigning the next one when it is new. */
  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  name(id: number): string {
    return this.names[id]!;
  }
}
