-- Functions > Collection: MAP_KEYS, MAP_VALUES, MAP_ENTRIES, MAP_FROM_ARRAYS, MAP_UNION
-- oracle: VALUES ('[a, b]', '[1, 2]', '{a=1, b=2}', '{a=1, b=3}')
SELECT MAP_KEYS(MAP['a', 1, 'b', 2]), MAP_VALUES(MAP['a', 1, 'b', 2]), MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1, 2]), MAP_UNION(MAP['a', 1, 'b', 2], MAP['b', 3]);
