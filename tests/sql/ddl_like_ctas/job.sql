-- CREATE TABLE ... LIKE merges the source table's definition as Flink does
-- (by default every feature INCLUDING and the options OVERWRITING);
-- CREATE TABLE ... AS query makes a table of the query's columns and
-- inserts the query into it; CREATE OR REPLACE TABLE ... AS replaces one.
CREATE TABLE base (id INT, name STRING, score INT, ts TIMESTAMP(3), doubled AS score * 2,
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'none.csv', 'format' = 'csv');
-- every feature of base, its path overwritten
CREATE TABLE copy1 WITH ('path' = 't.csv') LIKE base;
-- base's physical columns only (they always come), a computed column and
-- options of its own
CREATE TABLE copy2 (shout AS name || '!') WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv')
  LIKE base (EXCLUDING ALL);
-- copy1's computed column replaced by one of the same name
CREATE TABLE copy3 (doubled AS score * 3) LIKE copy1 (OVERWRITING GENERATED);
-- the window aggregation needs copy1's watermark, which LIKE kept
CREATE TABLE w WITH ('connector' = 'print', 'print-identifier' = 'w') AS
  SELECT window_start, COUNT(*) AS n, SUM(doubled) AS d
  FROM TABLE(TUMBLE(TABLE copy1, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
CREATE TABLE c2 WITH ('connector' = 'print', 'print-identifier' = 'c2') AS SELECT id, shout FROM copy2;
CREATE TABLE c3 WITH ('connector' = 'blackhole') AS SELECT id FROM copy3;
CREATE OR REPLACE TABLE c3 WITH ('connector' = 'print', 'print-identifier' = 'c3') AS
  SELECT id, doubled FROM copy3 WHERE id > 2;
-- IF NOT EXISTS over an existing table: the query goes into the table
CREATE TABLE IF NOT EXISTS c2 AS SELECT id, 'x' FROM copy2 WHERE id = 1;
