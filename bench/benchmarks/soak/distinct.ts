/** Distinct users, items and (user, item) pairs of one organisation's ingested events, as bitsets. */
export class Distinct {
  private readonly users: Uint8Array;
  private readonly items: Uint8Array;
  private readonly pairs: Uint8Array;

  constructor(
    private readonly userCount: number,
    private readonly itemCount: number,
  ) {
    this.users = new Uint8Array(Math.ceil(userCount / 8));
    this.items = new Uint8Array(Math.ceil(itemCount / 8));
    this.pairs = new Uint8Array(Math.ceil((userCount * itemCount) / 8));
  }

  add(user: number, item: number): void {
    set(this.users, user);
    set(this.items, item);
    set(this.pairs, user * this.itemCount + item);
  }

  counts(): { users: number; items: number; pairs: number; possiblePairs: number } {
    return { users: ones(this.users), items: ones(this.items), pairs: ones(this.pairs), possiblePairs: this.userCount * this.itemCount };
  }
}

const set = (bits: Uint8Array, i: number) => void (bits[i >> 3] |= 1 << (i & 7));

function ones(bits: Uint8Array): number {
  let n = 0;
  for (let b of bits) {
    for (; b; b &= b - 1) n++;
  }
  return n;
}
