-- SHOW CREATE TABLE prints the table as Flink does: its catalog, database
-- and name and every column name in backquotes, one column per line with
-- its type's full name (STRING is VARCHAR(2147483647), DECIMAL is
-- DECIMAL(10, 0), TIMESTAMP is TIMESTAMP(6), TIME is TIME(0),
-- TIMESTAMP_LTZ(p) is TIMESTAMP(p) WITH LOCAL TIME ZONE), a primary key's
-- columns NOT NULL, a column's COMMENT, the watermark, the key's
-- constraint (an unnamed key is PK_ and its columns joined by _), then the
-- table's COMMENT, PARTITIONED BY and the WITH options, one per line,
-- sorted; all in the SQL client's one-column result table.
CREATE DATABASE db1;
CREATE TABLE db1.full_t (
  id BIGINT COMMENT 'the key',
  region STRING NOT NULL,
  price DECIMAL,
  qty DECIMAL(12, 2),
  tags ARRAY<STRING>,
  attrs MAP<STRING, INT>,
  pos ROW<x DOUBLE, y DOUBLE>,
  code CHAR(2),
  t0 TIMESTAMP,
  d TIME,
  ts TIMESTAMP_LTZ(3),
  total AS qty * 2,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  CONSTRAINT pk_id PRIMARY KEY (id, region) NOT ENFORCED
) COMMENT 'all parts' PARTITIONED BY (region)
  WITH ('path' = 'x', 'format' = 'json', 'connector' = 'filesystem');
CREATE TEMPORARY TABLE tmp (a INT, b STRING, c INT, PRIMARY KEY (a, b) NOT ENFORCED)
  WITH ('connector' = 'datagen', 'fields.c.start' = '1', 'fields.c.kind' = 'sequence', 'fields.c.end' = '9');
SHOW CREATE TABLE db1.full_t;
SHOW CREATE TABLE tmp;
