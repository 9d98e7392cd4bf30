-- Functions > Comparison: IN, NOT IN, LIKE with ESCAPE, SIMILAR TO
-- oracle: VALUES (1, 1, 1, 1)
SELECT 'b' IN ('a', 'b'), 3 NOT IN (1, 2), 'a_c' LIKE 'a!_c' ESCAPE '!', 'abc' SIMILAR TO 'a(b|x)c';
