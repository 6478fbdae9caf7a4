/**
 * A first-in first-out queue without Array.shift's copying: a shard may hold thousands of organisations with
 * work, and one organisation thousands of asks.
 */
export class Ring<T> {
  private slots: Array<T | undefined> = new Array<T | undefined>(16).fill(undefined);
  private head = 0;
  length = 0;

  push(value: T): void {
    if (this.length === this.slots.length) this.grow();
    this.slots[(this.head + this.length) & (this.slots.length - 1)] = value;
    this.length++;
  }

  /** The oldest value, without removing it. */
  peek(): T | undefined {
    return this.length === 0 ? undefined : this.slots[this.head];
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const value = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & (this.slots.length - 1);
    this.length--;
    return value;
  }

  private grow(): void {
    const slots = new Array<T | undefined>(this.slots.length * 2).fill(undefined);
    for (let i = 0; i < this.length; i++) slots[i] = this.slots[(this.head + i) & (this.slots.length - 1)];
    this.slots = slots;
    this.head = 0;
  }
}
