-- Functions > Value Access: row.field and (expr).field, array of row element field
-- oracle: VALUES (1, 'Oslo', 'x1'), (2, 'Bergen', 'x3'), (3, NULL, NULL)
SELECT id, addr.city, items[1].sku FROM events;
