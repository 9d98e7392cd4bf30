-- LIKE and ALTER rules that keep a table what it was:
-- a METADATA column declared without FROM 'key' reads the metadata of its
-- name, so renaming it keeps the key (FROM 'offset' appears);
-- LIKE's ALL is the strategy of the features the clause does not name,
-- wherever it is written (both copies keep the watermark);
-- LIKE copies every partition column of its source;
-- DROP TEMPORARY TABLE IF EXISTS of a permanent table drops nothing.
CREATE TABLE k (id INT, `offset` BIGINT METADATA VIRTUAL)
  WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json');
ALTER TABLE k RENAME `offset` TO pos;
SHOW CREATE TABLE k;
CREATE TABLE src (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen');
CREATE TABLE l1 (extra INT) WITH ('connector' = 'blackhole') LIKE src (INCLUDING WATERMARKS EXCLUDING ALL);
CREATE TABLE l2 (extra INT) WITH ('connector' = 'blackhole') LIKE src (EXCLUDING ALL INCLUDING WATERMARKS);
SHOW CREATE TABLE l1;
SHOW CREATE TABLE l2;
CREATE TABLE p (a INT, b STRING, c STRING) PARTITIONED BY (b, c)
  WITH ('connector' = 'filesystem', 'path' = 'pdir', 'format' = 'csv');
CREATE TABLE q WITH ('path' = 'qdir') LIKE p;
SHOW CREATE TABLE q;
DROP TEMPORARY TABLE IF EXISTS p;
SHOW TABLES;
