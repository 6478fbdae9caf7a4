/**
 * With INGEST_ACK=queued a request is acknowledged before it is written. If the database then refuses it on
 * its own (validation is built so that it never does), its records are kept here, as the JSON the client sent
 * them in, rather than lost: text, not jsonb, since what jsonb refused (a NUL escape, say) text holds as written.
 */
export const sql = `
CREATE TABLE ingest_refused (
  id          bigserial PRIMARY KEY,
  org         integer NOT NULL,
  refused_at  timestamptz NOT NULL DEFAULT now(),
  error       text NOT NULL,
  records     text NOT NULL
);
CREATE INDEX ingest_refused_org ON ingest_refused (org, refused_at);
`;
