-- Queries > Joins > Array Expansion: CROSS JOIN UNNEST
-- oracle: VALUES (1, 'a'), (1, 'b'), (3, 'c')
SELECT e.id, t.tag FROM events AS e CROSS JOIN UNNEST(e.tags) AS t(tag);
