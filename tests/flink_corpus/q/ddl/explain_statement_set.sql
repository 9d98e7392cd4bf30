-- EXPLAIN STATEMENT SET
CREATE TABLE bh1 (user_id STRING) WITH ('connector' = 'blackhole');
CREATE TABLE bh2 (product STRING) WITH ('connector' = 'blackhole');
EXPLAIN STATEMENT SET BEGIN
INSERT INTO bh1 SELECT user_id FROM orders;
INSERT INTO bh2 SELECT product FROM orders;
END;
