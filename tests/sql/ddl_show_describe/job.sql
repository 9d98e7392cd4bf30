-- SHOW TABLES (tables and views, sorted), SHOW VIEWS, DESCRIBE / DESC (of a
-- table and of a view) and
-- SHOW CREATE TABLE print the catalog as the statements before them left
-- it, in the SQL client's table layout, before the job runs; a script of
-- nothing else runs no job.
CREATE TABLE orders (id BIGINT NOT NULL, product VARCHAR(32), amount INT, ts TIMESTAMP(3),
    ptime AS PROCTIME(), PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen');
CREATE VIEW big AS SELECT * FROM orders WHERE amount > 10;
CREATE TABLE zeta (x INT) WITH ('connector' = 'blackhole');
SHOW TABLES;
SHOW VIEWS;
DESCRIBE orders;
DROP VIEW big;
ALTER TABLE zeta RENAME TO alpha;
ALTER TABLE alpha ADD (y AS x + 1, WATERMARK FOR t AS t, t TIMESTAMP_LTZ(3) FIRST);
SHOW TABLES;
SHOW VIEWS;
DESC alpha;
SHOW CREATE TABLE alpha;
CREATE VIEW per_id (i, n) AS SELECT id, COUNT(*) FROM orders GROUP BY id;
DESCRIBE per_id;
