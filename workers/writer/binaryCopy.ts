/** PostgreSQL's binary COPY format: the signature, no flags, no header extension. */
export const BINARY_HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
/** A field count of -1 ends the data. */
export const BINARY_TRAILER = Buffer.from([0xff, 0xff]);
