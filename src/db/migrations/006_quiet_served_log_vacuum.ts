/**
 * The served log only grows, and PostgreSQL vacuums a table each time a fifth more rows were inserted (to mark
 * its new pages all-visible and freeze them). On a large log such a vacuum runs for minutes on the cores that
 * serve, and recommend latency rises meanwhile. Nothing reads this log on a hot path, so its vacuum sleeps five
 * times longer between rounds of work (what that bought is in docs/recommender.md, "Attribution").
 */
export const sql = `
ALTER TABLE served_recommendations SET (autovacuum_vacuum_cost_delay = 10);
`;
