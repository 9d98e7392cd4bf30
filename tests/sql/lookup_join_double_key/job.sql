-- A lookup join of a DOUBLE key with a BIGINT or DECIMAL column meets the
-- column's values as doubles, as '=' compares them (and a regular join
-- does): the DOUBLE 9007199254740992 meets both 9007199254740992 and
-- 9007199254740993 (2^53 + 1, whose nearest double is 2^53). weir once
-- cast the key to the column's type and found 9007199254740992 alone.
-- tb (BIGINT) = 2^53 + 1 odd, 2^53 even, 7 seven, 0 zero; td (DECIMAL(38,
-- 2)) = 2^53 + 1 dodd, 7 dseven; s = 2^53, 7.5, NaN, -0.0, 7. Worked by hand:
--   big: 1 even, 1 odd, 2 NULL, 3 NULL, 4 zero, 5 seven
--   dec: 1 dodd, 2 NULL, 3 NULL, 4 NULL, 5 dseven
CREATE TABLE tb (k BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'tb.csv', 'format' = 'csv');
CREATE TABLE td (k DECIMAL(38, 2), name STRING) WITH ('connector' = 'filesystem', 'path' = 'td.csv', 'format' = 'csv');
CREATE TABLE s (id INT, f DOUBLE, p AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
CREATE TABLE big (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'big');
CREATE TABLE dec (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'dec');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO big SELECT s.id, t.name FROM s LEFT JOIN tb FOR SYSTEM_TIME AS OF s.p AS t ON s.f = t.k;
  INSERT INTO dec SELECT s.id, t.name FROM s LEFT JOIN td FOR SYSTEM_TIME AS OF s.p AS t ON t.k = s.f;
END;
