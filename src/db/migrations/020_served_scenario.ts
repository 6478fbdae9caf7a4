/**
 * The place on the site a recommendation was served for (`scenario` of the recommend request: `home`,
 * `product-page`, …; `default` when the request names none), so analytics can split by it and rules and
 * experiments can attach to it. A constant default: PostgreSQL adds the column without rewriting the table.
 */
export const sql = `
ALTER TABLE served_recommendations ADD COLUMN scenario text NOT NULL DEFAULT 'default';
`;
