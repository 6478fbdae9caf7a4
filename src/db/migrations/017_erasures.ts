/**
 * Erasure requests (README, Erasure). A request deletes its users' rows and identity aliases in the transaction
 * that records it; their events and served recommendations are deleted after, in bounded chunks of the tables'
 * blocks (`events_block`, `served_block`: the next block to scan), by whichever process holds the request's claim
 * (`claimed_by` until `claimed_until`, renewed while it works: a process that dies leaves it to another). An
 * hour after it is done `user_ids` is emptied (the other processes' feeds read the ids there): the counts stay,
 * the names of the people erased do not. A loading recommender thread reads the pending ones' ids to leave
 * their users' remaining events out.
 */
export const sql = `
CREATE TABLE erasures (
  id             uuid PRIMARY KEY,
  org            integer NOT NULL,
  user_ids       text[] NOT NULL,
  named          integer NOT NULL,
  requested_at   timestamptz NOT NULL DEFAULT now(),
  done_at        timestamptz,
  claimed_by     uuid,
  claimed_until  timestamptz,
  events_block   bigint NOT NULL DEFAULT 0,
  served_block   bigint NOT NULL DEFAULT 0,
  users          integer NOT NULL DEFAULT 0,
  aliases        integer NOT NULL DEFAULT 0,
  events         bigint NOT NULL DEFAULT 0,
  served         bigint NOT NULL DEFAULT 0
);
CREATE INDEX erasures_pending ON erasures (requested_at) WHERE done_at IS NULL;
CREATE INDEX erasures_org ON erasures (org, requested_at);
`;
