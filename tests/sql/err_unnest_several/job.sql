CREATE TABLE o (id INT, a ARRAY<INT>, b ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'o.json', 'format' = 'json');
SELECT id, v, w FROM o CROSS JOIN UNNEST(a, b) AS x(v, w);
