import type pg from "pg";
import copyStreams from "pg-copy-streams";

/** COPY's binary format: this signature, a flags word and a header extension, then each row's fields, then −1. */
const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** Where the fields of `COPY … TO STDOUT (FORMAT binary)` go, piece by piece as the stream brings them. */
export interface FieldSink {
  /** A field of `length` bytes begins (−1: NULL, no bytes follow); `row` and `field` count from 0. */
  field(row: number, field: number, length: number): void;
  /** The next piece of the field begun last, in order; valid only during the call (it is the stream's chunk). */
  bytes(piece: Uint8Array): void;
}

/**
 * Reads the binary COPY output of `query` into `sink` without holding it whole: each field's bytes are handed on
 * as they arrive, so a consumer that knows where they go (a snapshot's preallocated bytes) copies them once,
 * where collecting the chunks, joining them and cutting the fields out copied everything twice and held it three
 * times. node-postgres reads query results as text only, where a bytea arrives as hex (twice its size) and is
 * decoded in one go on this thread. Returns the rows read.
 */
export async function readCopyBinary(client: pg.Client, query: string, sink: FieldSink): Promise<number> {
  const reader = new CopyBinaryReader(sink);
  const stream = client.query(copyStreams.to(`COPY (${query}) TO STDOUT (FORMAT binary)`));
  for await (const chunk of stream as AsyncIterable<Buffer>) reader.push(chunk);
  return reader.end();
}

/** The stream's parser, fed chunks cut anywhere. */
export class CopyBinaryReader {
  /** Bytes of a header, count or length cut by a chunk's end, kept until the next chunk completes them. */
  private carry = Buffer.alloc(0);
  private state: "signature" | "extension" | "fields" | "length" | "bytes" | "done" = "signature";
  private rows = 0;
  private fields = 0;
  private field = 0;
  /** Bytes still to come: of the header extension, or of the current field. */
  private left = 0;

  constructor(private readonly sink: FieldSink) {}

  push(chunk: Buffer): void {
    let data = chunk;
    let at = 0;
    if (this.carry.length > 0) {
      data = Buffer.concat([this.carry, chunk]);
      this.carry = Buffer.alloc(0);
    }
    while (at < data.length) {
      switch (this.state) {
        case "signature": {
          if (data.length - at < SIGNATURE.length + 8) return this.keep(data, at);
          if (!data.subarray(at, at + SIGNATURE.length).equals(SIGNATURE)) throw new Error("a COPY in binary format began without its signature");
          this.left = data.readUInt32BE(at + SIGNATURE.length + 4);
          at += SIGNATURE.length + 8;
          this.state = "extension";
          break;
        }
        case "extension": {
          const n = Math.min(this.left, data.length - at);
          at += n;
          this.left -= n;
          if (this.left === 0) this.state = "fields";
          break;
        }
        case "fields": {
          if (data.length - at < 2) return this.keep(data, at);
          this.fields = data.readInt16BE(at);
          at += 2;
          if (this.fields === -1) {
            this.state = "done";
            break;
          }
          if (this.fields < 0) throw new Error(`a COPY row of ${this.fields} fields`);
          this.field = 0;
          this.state = this.fields === 0 ? this.nextRow() : "length";
          break;
        }
        case "length": {
          if (data.length - at < 4) return this.keep(data, at);
          const n = data.readInt32BE(at);
          at += 4;
          if (n < -1) throw new Error(`a COPY field of ${n} bytes`);
          this.sink.field(this.rows, this.field, n);
          this.left = Math.max(0, n);
          this.state = this.left > 0 ? "bytes" : this.nextField();
          break;
        }
        case "bytes": {
          const n = Math.min(this.left, data.length - at);
          this.sink.bytes(data.subarray(at, at + n));
          at += n;
          this.left -= n;
          if (this.left === 0) this.state = this.nextField();
          break;
        }
        case "done":
          throw new Error("bytes after the end of a COPY in binary format");
      }
    }
  }

  /** The rows read; throws when the stream stopped before its end marker. */
  end(): number {
    if (this.state !== "done") throw new Error("a COPY in binary format ended early");
    return this.rows;
  }

  private keep(data: Buffer, at: number): void {
    this.carry = Buffer.from(data.subarray(at));
  }

  private nextField(): "length" | "fields" {
    this.field++;
    return this.field < this.fields ? "length" : this.nextRow();
  }

  private nextRow(): "fields" {
    this.rows++;
    return "fields";
  }
}
