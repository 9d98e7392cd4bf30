-- Set operations over TIME(0) and TIME(3) columns widen to TIME(3), as
-- Flink's do: 12:00:00 and 12:00:00.500 are two rows, 13:00:00 and
-- 13:00:00.000 one (printed 13:00, as Java prints a time of whole minutes).
CREATE TABLE a (t0 TIME(0)) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (t3 TIME(3)) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE u (t TIME(3)) WITH ('connector' = 'print', 'print-identifier' = 'union');
CREATE TABLE i (t TIME(3)) WITH ('connector' = 'print', 'print-identifier' = 'intersect');
CREATE TABLE ua (t TIME(3)) WITH ('connector' = 'print', 'print-identifier' = 'unionall');
EXECUTE STATEMENT SET BEGIN
INSERT INTO u SELECT t0 FROM a UNION SELECT t3 FROM b;
INSERT INTO i SELECT t0 FROM a INTERSECT SELECT t3 FROM b;
INSERT INTO ua SELECT t3 FROM b UNION ALL SELECT t0 FROM a;
END;
