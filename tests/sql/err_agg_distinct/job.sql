-- DISTINCT in an aggregate whose result depends on the order rows arrive
-- in (FIRST_VALUE, LAST_VALUE, LISTAGG) is refused, naming it.
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, SUM(DISTINCT v), LISTAGG(DISTINCT k) FROM t GROUP BY k;
