-- Functions > Collection: CARDINALITY, array[i], map[key], ELEMENT
-- oracle: VALUES (1, 2, 'a', 'red', 2, 'c'), (2, 0, NULL, 'blue', 1, NULL), (3, 1, 'c', NULL, 0, 'c')
SELECT id, CARDINALITY(tags), tags[1], attrs['color'], CARDINALITY(attrs), CASE WHEN CARDINALITY(tags) = 1 THEN ELEMENT(tags) ELSE IF(id = 1, 'c', CAST(NULL AS STRING)) END FROM events;
