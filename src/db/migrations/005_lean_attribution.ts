/**
 * A served recommendation is written for every answer, so each index and each conversion on that table is paid
 * at the serving rate. The (org, served_at) index goes: the v7 recommendation_id leads with its serving time,
 * so the primary key already orders an organisation's rows by time (see analytics.ts). And `items` becomes
 * `json`: it is only ever stored and returned whole, and jsonb rebuilt every array into its binary form.
 */
export const sql = `
DROP INDEX IF EXISTS served_recommendations_at;
ALTER TABLE served_recommendations ALTER COLUMN items TYPE json USING items::json;
`;
