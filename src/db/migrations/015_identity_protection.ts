/**
 * Identity protection (README, Identity verification).
 *
 * `apply_identifies` decides a batch's identify events in the writer's transaction, in the batch's order, under
 * a lock per organisation: so the decisions follow commit order, the same in every process and after a
 * restart, whatever the events' timestamps (the index loads `identity_aliases` as decided, never replaying
 * identify events). An identify is refused (its event is stored, its alias is not) when its previous id
 * - is the user itself, or the user is already an alias of it (a cycle),
 * - is already an alias (the first identify of an id wins: a later one would carry its history off again),
 * - has absorbed another id (a signed-in user is never moved into another),
 * - is a user the organisation upserted with its secret key (a row in `users`).
 * An accepted alias names the user its user id resolves to, so no alias ever points at another alias.
 *
 * Aliases stored before this rule may form chains and cycles: those whose previous id absorbed another are
 * dropped, which leaves no chain.
 *
 * `identity_verification`: the organisation's identity secret (HMAC key of `user_hash`) and whether
 * publishable-key requests must prove their user with it. Kept in the clear: verifying needs the key itself.
 */
export const sql = `
DELETE FROM identity_aliases a
WHERE EXISTS (SELECT 1 FROM identity_aliases b WHERE b.org = a.org AND b.user_id = a.previous_user_id AND b.previous_user_id <> a.previous_user_id);
DELETE FROM identity_aliases WHERE previous_user_id = user_id;
CREATE INDEX identity_aliases_target ON identity_aliases (org, user_id);

CREATE FUNCTION apply_identifies(orgs integer[], previous text[], users text[], ats timestamptz[]) RETURNS integer[]
LANGUAGE plpgsql AS $$
DECLARE
  refused integer[] := '{}';
  target text;
  o integer;
BEGIN
  -- In ascending order, so that two writers locking overlapping organisations cannot deadlock.
  FOR o IN SELECT DISTINCT x FROM unnest(orgs) AS x ORDER BY x LOOP
    PERFORM pg_advisory_xact_lock(1015, o);
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(orgs, 1), 0) LOOP
    target := coalesce((SELECT a.user_id FROM identity_aliases a WHERE a.org = orgs[i] AND a.previous_user_id = users[i]), users[i]);
    IF target = previous[i]
       OR EXISTS (SELECT 1 FROM identity_aliases a WHERE a.org = orgs[i] AND a.previous_user_id = previous[i])
       OR EXISTS (SELECT 1 FROM identity_aliases a WHERE a.org = orgs[i] AND a.user_id = previous[i])
       OR EXISTS (SELECT 1 FROM users u WHERE u.org = orgs[i] AND u.user_id = previous[i]) THEN
      refused := refused || i;
    ELSE
      INSERT INTO identity_aliases (org, previous_user_id, user_id, at) VALUES (orgs[i], previous[i], target, ats[i]);
    END IF;
  END LOOP;
  RETURN refused;
END $$;

CREATE TABLE identity_verification (
  org         integer PRIMARY KEY REFERENCES organisations(seq),
  enabled     boolean NOT NULL DEFAULT false,
  secret      text,
  rotated_at  timestamptz,
  CHECK (NOT enabled OR secret IS NOT NULL)
);
`;
