-- IGNORE NULLS / RESPECT NULLS belong to ARRAY_AGG: any other function is
-- refused when the job is planned, naming it.
CREATE TABLE t (v INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT SUM(v IGNORE NULLS) FROM t;
