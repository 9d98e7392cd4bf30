-- A DECIMAL of more than 18 digits is aggregated by COUNT, SUM, AVG, MIN,
-- MAX, FIRST_VALUE, LAST_VALUE and LAG; STDDEV_POP refuses it by name
-- rather than read it as an 8-byte value.
CREATE TABLE t (k STRING, amount DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, m DOUBLE) WITH ('connector' = 'print');
INSERT INTO o SELECT k, STDDEV_POP(amount) FROM t GROUP BY k;
