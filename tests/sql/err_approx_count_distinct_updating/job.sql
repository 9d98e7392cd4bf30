-- An aggregate that cannot retract a row (APPROX_COUNT_DISTINCT) over an
-- updating input is refused when the job is planned, as in Flink, not when
-- the first -U/-D arrives: this changelog holds only inserts so far.
CREATE TABLE t (id INT, k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'debezium-json');
SELECT k, APPROX_COUNT_DISTINCT(v) FROM t GROUP BY k;
