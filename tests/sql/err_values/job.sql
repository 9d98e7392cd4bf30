SELECT * FROM (VALUES (1, 'a'), ('b', 2));
