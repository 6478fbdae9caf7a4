/**
 * Status history from the upserts themselves: statement triggers read the rows an INSERT … ON CONFLICT DO UPDATE
 * inserted and updated (transition tables), so keeping every status change costs no second lookup of each row
 * (a join of the staging rows against the table first would be a large share of a bulk upload's time).
 */
export const sql = `
CREATE FUNCTION record_inserted_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'items' THEN
    INSERT INTO status_changes (org, kind, id, old_status, new_status) SELECT org, 'item', item_id, NULL, status FROM new_rows;
  ELSE
    INSERT INTO status_changes (org, kind, id, old_status, new_status) SELECT org, 'user', user_id, NULL, status FROM new_rows;
  END IF;
  RETURN NULL;
END $$;

-- Transition tables carry no statistics: the planner takes them for a few rows and would pair them by nested
-- loop, quadratic in a 10,000-row batch. A hash join pairs them in one pass.
CREATE FUNCTION record_changed_statuses() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off AS $$
BEGIN
  IF TG_TABLE_NAME = 'items' THEN
    INSERT INTO status_changes (org, kind, id, old_status, new_status)
    SELECT n.org, 'item', n.item_id, o.status, n.status FROM old_rows o JOIN new_rows n USING (org, item_id)
    WHERE o.status IS DISTINCT FROM n.status;
  ELSE
    INSERT INTO status_changes (org, kind, id, old_status, new_status)
    SELECT n.org, 'user', n.user_id, o.status, n.status FROM old_rows o JOIN new_rows n USING (org, user_id)
    WHERE o.status IS DISTINCT FROM n.status;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER items_statuses_inserted AFTER INSERT ON items
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_inserted_statuses();
CREATE TRIGGER items_statuses_changed AFTER UPDATE ON items
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_changed_statuses();
CREATE TRIGGER users_statuses_inserted AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_inserted_statuses();
CREATE TRIGGER users_statuses_changed AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_changed_statuses();
`;
