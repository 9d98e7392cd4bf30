-- Queries > Joins > Array Expansion: UNNEST WITH ORDINALITY
-- oracle: VALUES (1, 'a', 1), (1, 'b', 2), (3, 'c', 1)
SELECT e.id, t.tag, t.pos FROM events AS e CROSS JOIN UNNEST(e.tags) WITH ORDINALITY AS t(tag, pos);
