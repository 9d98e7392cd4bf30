-- A lookup join casts the stream's key to the type of the table's key
-- column to find its rows; where that cast can change a value (7.5 as a
-- BIGINT is 7, 7.5050 as a DECIMAL(10, 2) is 7.51), the equality decides
-- too, exactly: 7.5 meets no key 7, and a LEFT join pads it.
CREATE TABLE side_int (key BIGINT, `value` STRING) WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
CREATE TABLE side_dec (key DECIMAL(10, 2), `value` STRING) WITH ('connector' = 'filesystem', 'path' = 'sided.csv', 'format' = 'csv');
CREATE TABLE s (id INT, d DECIMAL(5, 2), f DOUBLE, w DECIMAL(12, 4), p AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
CREATE TABLE dec_inner (id INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'dec_inner');
CREATE TABLE dbl_left (id INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'dbl_left');
CREATE TABLE scale_left (id INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'scale_left');
EXECUTE STATEMENT SET BEGIN
INSERT INTO dec_inner SELECT s.id, t.`value` FROM s JOIN side_int FOR SYSTEM_TIME AS OF s.p AS t ON s.d = t.key;
INSERT INTO dbl_left SELECT s.id, t.`value` FROM s LEFT JOIN side_int FOR SYSTEM_TIME AS OF s.p AS t ON s.f = t.key;
INSERT INTO scale_left SELECT s.id, t.`value` FROM s LEFT JOIN side_dec FOR SYSTEM_TIME AS OF s.p AS t ON s.w = t.key;
END;
