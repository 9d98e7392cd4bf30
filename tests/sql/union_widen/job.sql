-- Set operations over numeric columns of different types widen both sides
-- to the type they both fit, as Flink does: INT and BIGINT to BIGINT, with
-- DOUBLE to DOUBLE, with a DECIMAL to a DECIMAL holding the integral digits
-- and the scale of both (INT counts as DECIMAL(10, 0)). Other types still
-- need a CAST. (The EXCEPT's right side holds no value of the left's: its
-- rows do not depend on which input is read first.)
CREATE TABLE i (x INT NOT NULL, s STRING) WITH ('connector' = 'filesystem', 'path' = 'i.csv', 'format' = 'csv');
CREATE TABLE b (x BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE d (x DECIMAL(5, 2), s STRING) WITH ('connector' = 'filesystem', 'path' = 'd.csv', 'format' = 'csv');
CREATE TABLE all_bigint (x BIGINT, s STRING) WITH ('connector' = 'print', 'print-identifier' = 'all');
CREATE TABLE distinct_bigint (x BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'distinct');
CREATE TABLE with_double (x DOUBLE) WITH ('connector' = 'print', 'print-identifier' = 'double');
CREATE TABLE with_decimal (x DECIMAL(12, 2), s STRING) WITH ('connector' = 'print', 'print-identifier' = 'decimal');
CREATE TABLE inter (x BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'intersect');
CREATE TABLE except_ (x BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'except');
EXECUTE STATEMENT SET BEGIN
INSERT INTO all_bigint SELECT x, s FROM i UNION ALL SELECT x, s FROM b;
INSERT INTO distinct_bigint SELECT x FROM b UNION SELECT x FROM i;
INSERT INTO with_double SELECT x FROM i UNION ALL SELECT x * 0.5e0 FROM b;
INSERT INTO with_decimal SELECT x, s FROM i UNION ALL SELECT x, s FROM d;
INSERT INTO inter SELECT x FROM i INTERSECT SELECT x FROM b;
INSERT INTO except_ SELECT x FROM i EXCEPT SELECT x FROM b WHERE x > 100;
END;
