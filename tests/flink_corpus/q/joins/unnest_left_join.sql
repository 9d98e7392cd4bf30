-- Queries > Joins > Array Expansion: LEFT JOIN UNNEST ... ON TRUE
-- oracle: VALUES (1, 'a'), (1, 'b'), (2, NULL), (3, 'c')
SELECT e.id, t.tag FROM events AS e LEFT JOIN UNNEST(e.tags) AS t(tag) ON TRUE;
