-- Functions > Value Construction: ROW(...), ARRAY[...], MAP[...]
-- oracle: VALUES ('+I[1, x]', '[1, 2]', '{k=v}')
SELECT ROW(1, 'x'), ARRAY[1, 2], MAP['k', 'v'];
