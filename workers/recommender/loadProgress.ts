/**
 * Which organisations a loading shard has read in full. Every item and user is read first; then events,
 * organisation by organisation, smallest first, so that after a restart most organisations are served again
 * long before the largest one is read. `mark` only grows: a message can remember the mark it arrived at.
 */
export class LoadProgress {
  private readonly position = new Map<number, number>();
  /** -1 until items and users are read; then how many organisations of the order have their events read. */
  private done = -1;

  catalogLoaded(order: readonly number[]): void {
    order.forEach((org, i) => this.position.set(org, i));
    this.done = 0;
  }

  orgsLoaded(count: number): void {
    this.done += count;
  }

  get mark(): number {
    return this.done;
  }

  /** Whether `org` was read in full when the mark was `mark` (an organisation without events, once items and users were). */
  loadedAt(org: number, mark: number): boolean {
    if (mark < 0) return false;
    const p = this.position.get(org);
    return p === undefined || p < mark;
  }
}
