-- Queries > Joins > Array Expansion: UNNEST an ARRAY of ROW
-- oracle: VALUES (1, 'x1', 2), (1, 'x2', 1), (2, 'x3', 5)
SELECT e.id, i.sku, i.n FROM events AS e, UNNEST(e.items) AS i(sku, n);
