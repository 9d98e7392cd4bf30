-- A negative frequency fails the job (Flink throws), naming the argument.
CREATE TABLE t (k STRING, v INT, f INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT k, PERCENTILE(v, 0.5, f) FROM t GROUP BY k;
