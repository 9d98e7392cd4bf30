-- TRY_CASTs of one value to different types are different values, also
-- under a function of the same result type: each CAST(... AS STRING) below
-- has its own (they were taken for one common subexpression, and one
-- statement's for another's over the same source, all giving the first's);
-- so are JSON_VALUEs of one path RETURNING different types.
CREATE TABLE t (id BIGINT, u STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE o (id BIGINT, a STRING, b STRING, c STRING, d STRING, e STRING) WITH ('connector' = 'print');
CREATE TABLE p (id BIGINT, a STRING, b STRING) WITH ('connector' = 'print');
CREATE TABLE q (id BIGINT, a STRING, b STRING, c STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT id, CAST(TRY_CAST(u AS DATE) AS STRING), CAST(TRY_CAST(u AS TIMESTAMP(3)) AS STRING),
  CAST(TRY_CAST(u AS TIME(3)) AS STRING), CAST(TRY_CAST(u AS TIME(0)) AS STRING), CAST(TRY_CAST(u AS INT) AS STRING) FROM t;
INSERT INTO p SELECT id, CAST(TRY_CAST(u AS DOUBLE) AS STRING), CAST(TRY_CAST(u AS BIGINT) AS STRING) FROM t;
INSERT INTO q SELECT id, CAST(JSON_VALUE(u, '$.a' RETURNING DOUBLE) AS STRING),
  CAST(JSON_VALUE(u, '$.a' RETURNING BIGINT) AS STRING), CAST(JSON_VALUE(u, '$.a' RETURNING BOOLEAN) AS STRING) FROM t;
