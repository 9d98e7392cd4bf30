-- UNNEST expands an ARRAY or a MAP; anything else is refused, naming its type.
CREATE TABLE t (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, x FROM t CROSS JOIN UNNEST(t.id) AS u(x);
