-- A hash function over a number is refused when the job is planned, naming
-- the function, the argument types and the signature (Flink takes only
-- character strings there too).
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT MD5(s), SHA256(id) FROM t;
