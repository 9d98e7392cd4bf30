-- Queries > Joins > Array Expansion: UNNEST a MAP into key and value
-- oracle: VALUES (1, 'color', 'red'), (1, 'size', 'L'), (2, 'color', 'blue')
SELECT e.id, a.k, a.v FROM events AS e CROSS JOIN UNNEST(e.attrs) AS a(k, v);
