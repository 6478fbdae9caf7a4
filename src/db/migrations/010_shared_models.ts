/**
 * CLUSTER=1: one process trains each organisation's model and the others load it (docs/scaling.md, Training).
 * `training_lease` names the process that trains an organisation until `expires_at`; the holder renews it while it
 * lives, so a process that dies (SIGKILL) loses it a lease's length later. `trained_model` keeps each
 * organisation's latest model, in the trainer's numbering with its items' ids (workers/model/modelBytes.ts).
 */
export const sql = `
CREATE TABLE training_lease (
  org         integer PRIMARY KEY,
  holder      uuid NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE SEQUENCE trained_model_version;
CREATE TABLE trained_model (
  org           integer PRIMARY KEY,
  version       bigint NOT NULL,
  holder        uuid NOT NULL,
  interactions  bigint NOT NULL,
  stored_at     timestamptz NOT NULL DEFAULT now(),
  model         bytea NOT NULL
);
ALTER TABLE trained_model ALTER COLUMN model SET STORAGE EXTERNAL;
`;
