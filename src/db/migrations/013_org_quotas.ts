/**
 * Per-organisation quotas (README, Quotas). `org_usage` holds each organisation's stored items and users and the
 * bytes of its items' attributes (the compact JSON the writer sends, kept per row in `items.attribute_bytes`),
 * maintained by statement triggers in the transaction that writes the rows, so it is exact whoever writes them,
 * in every process. The same triggers refuse a statement that adds past a limit (SQLSTATE RQ403): the limit is
 * the organisation's own (`organisations.max_*`) or the writer connection's `recsvc.org_max_*` (the process's
 * ORG_MAX_* settings); a session that set none (psql, another tool) is counted, never refused.
 *
 * One row per (organisation, kind): a batch locks its organisations' item rows in order, then their users'
 * (the merge writes items before users), the order every writer takes, so two batches never deadlock. Rows
 * stored before this migration are counted by `attributes::text` (a few bytes more than the compact JSON).
 * Only items' attributes are counted in bytes: users' are not kept in the recommender's memory.
 */
export const sql = `
ALTER TABLE organisations
  ADD COLUMN max_items bigint CHECK (max_items >= 0),
  ADD COLUMN max_users bigint CHECK (max_users >= 0),
  ADD COLUMN max_attribute_bytes bigint CHECK (max_attribute_bytes >= 0);

ALTER TABLE items ADD COLUMN attribute_bytes integer NOT NULL DEFAULT 0;
UPDATE items SET attribute_bytes = octet_length(attributes::text);

CREATE TABLE org_usage (
  org              integer NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('item','user')),
  records          bigint NOT NULL,
  attribute_bytes  bigint NOT NULL,
  -- Raised by every change, so a reader keeps the newest of two answers that crossed.
  version          bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (org, kind)
);
INSERT INTO org_usage (org, kind, records, attribute_bytes) SELECT org, 'item', count(*), sum(attribute_bytes) FROM items GROUP BY org;
INSERT INTO org_usage (org, kind, records, attribute_bytes) SELECT org, 'user', count(*), 0 FROM users GROUP BY org;

-- The limit on one measure of one organisation: its own, else the session's default, else none (NULL).
CREATE FUNCTION org_quota(p_org integer, p_measure text) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT COALESCE(
    (SELECT CASE p_measure WHEN 'items' THEN o.max_items WHEN 'users' THEN o.max_users ELSE o.max_attribute_bytes END
       FROM organisations o WHERE o.seq = p_org),
    NULLIF(current_setting('recsvc.org_max_' || p_measure, true), '')::bigint)
$$;

-- Adds to one organisation's usage, and refuses the statement when what it added passes a limit.
CREATE FUNCTION add_org_usage(p_org integer, p_kind text, p_records bigint, p_bytes bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  total_records bigint;
  total_bytes bigint;
  measure text := CASE p_kind WHEN 'item' THEN 'items' ELSE 'users' END;
  quota bigint;
BEGIN
  INSERT INTO org_usage AS u (org, kind, records, attribute_bytes) VALUES (p_org, p_kind, p_records, p_bytes)
  ON CONFLICT (org, kind) DO UPDATE
    SET records = u.records + EXCLUDED.records, attribute_bytes = u.attribute_bytes + EXCLUDED.attribute_bytes, version = u.version + 1
  RETURNING records, attribute_bytes INTO total_records, total_bytes;
  IF p_records > 0 THEN
    quota := org_quota(p_org, measure);
    IF total_records > quota THEN
      RAISE EXCEPTION USING ERRCODE = 'RQ403',
        MESSAGE = format('%s quota of %s reached (organisation has %s, request adds %s)', measure, quota, total_records - p_records, p_records);
    END IF;
  END IF;
  IF p_bytes > 0 THEN
    quota := org_quota(p_org, 'attribute_bytes');
    IF total_bytes > quota THEN
      RAISE EXCEPTION USING ERRCODE = 'RQ403',
        MESSAGE = format('attribute bytes quota of %s reached (organisation has %s, request adds %s)', quota, total_bytes - p_bytes, p_bytes);
    END IF;
  END IF;
END $$;

-- An INSERT … ON CONFLICT DO UPDATE fires its UPDATE statement triggers before its INSERT ones, so an upsert
-- that shrinks stored attributes and adds items is checked on its net bytes.
CREATE FUNCTION count_inserted_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_TABLE_NAME = 'items' THEN
    FOR r IN SELECT org, count(*) AS n, sum(attribute_bytes) AS b FROM new_rows GROUP BY org ORDER BY org LOOP
      PERFORM add_org_usage(r.org, 'item', r.n, r.b);
    END LOOP;
  ELSE
    FOR r IN SELECT org, count(*) AS n FROM new_rows GROUP BY org ORDER BY org LOOP
      PERFORM add_org_usage(r.org, 'user', r.n, 0);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION count_deleted_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_TABLE_NAME = 'items' THEN
    FOR r IN SELECT org, count(*) AS n, sum(attribute_bytes) AS b FROM old_rows GROUP BY org ORDER BY org LOOP
      PERFORM add_org_usage(r.org, 'item', -r.n, -r.b);
    END LOOP;
  ELSE
    FOR r IN SELECT org, count(*) AS n FROM old_rows GROUP BY org ORDER BY org LOOP
      PERFORM add_org_usage(r.org, 'user', -r.n, 0);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

-- Sums per organisation on each side: no pairing of old and new rows, so no join to plan.
CREATE FUNCTION count_changed_item_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT org, sum(b)::bigint AS b FROM (
      SELECT org, attribute_bytes::bigint AS b FROM new_rows UNION ALL SELECT org, -attribute_bytes::bigint FROM old_rows
    ) d GROUP BY org HAVING sum(b) <> 0 ORDER BY org
  LOOP
    PERFORM add_org_usage(r.org, 'item', 0, r.b);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER items_usage_inserted AFTER INSERT ON items
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_rows();
CREATE TRIGGER items_usage_changed AFTER UPDATE ON items
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_changed_item_bytes();
CREATE TRIGGER items_usage_deleted AFTER DELETE ON items
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_rows();
CREATE TRIGGER users_usage_inserted AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_rows();
CREATE TRIGGER users_usage_deleted AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_rows();
`;
