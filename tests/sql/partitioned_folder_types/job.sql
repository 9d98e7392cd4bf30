-- The partition folder text of each type (docs/connectors.md, "Partitioned
-- output"): DOUBLE as Double.toString (0.1, 1.0E22, 1.0E-7, -0.0 apart from
-- 0.0, NaN, Infinity), DECIMAL with every digit of its scale, BOOLEAN,
-- DATE, TIME(p) with p digits (at most 3), TIMESTAMP(p) with milliseconds
-- whatever p (digits below them are not kept: the two TIMESTAMP(6) rows
-- are one value), TIMESTAMP_LTZ in UTC whatever the session zone.
SET 'table.local-time-zone' = 'Asia/Kolkata';
CREATE TABLE d (id INT, x DOUBLE) PARTITIONED BY (x)
  WITH ('connector' = 'filesystem', 'path' = 'out/double', 'format' = 'csv');
CREATE TABLE m (id INT, x DECIMAL(20, 10), y DECIMAL(5, 0)) PARTITIONED BY (x, y)
  WITH ('connector' = 'filesystem', 'path' = 'out/decimal', 'format' = 'csv');
CREATE TABLE b (id INT, x BOOLEAN, y DATE, z SMALLINT) PARTITIONED BY (x, y, z)
  WITH ('connector' = 'filesystem', 'path' = 'out/bool_date_int', 'format' = 'csv');
CREATE TABLE tm (id INT, x TIME, y TIME(1), z TIME(6)) PARTITIONED BY (x, y, z)
  WITH ('connector' = 'filesystem', 'path' = 'out/time', 'format' = 'csv');
CREATE TABLE ts (id INT, x TIMESTAMP(0), y TIMESTAMP(6), z TIMESTAMP_LTZ(3)) PARTITIONED BY (x, y, z)
  WITH ('connector' = 'filesystem', 'path' = 'out/timestamp', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO d VALUES (1, CAST('0.1' AS DOUBLE)), (2, CAST('1e22' AS DOUBLE)),
    (3, CAST('1e-7' AS DOUBLE)), (4, CAST('-0.0' AS DOUBLE)), (5, CAST('0' AS DOUBLE)),
    (6, CAST('NaN' AS DOUBLE)), (7, CAST('-Infinity' AS DOUBLE)), (8, CAST(NULL AS DOUBLE));
  INSERT INTO m VALUES (1, CAST('-1.5' AS DECIMAL(20, 10)), CAST('7' AS DECIMAL(5, 0))),
    (2, CAST('0.0000000001' AS DECIMAL(20, 10)), CAST('-99999' AS DECIMAL(5, 0)));
  INSERT INTO b VALUES (1, TRUE, DATE '2024-02-29', CAST(-32768 AS SMALLINT)),
    (2, FALSE, DATE '0001-01-01', CAST(7 AS SMALLINT));
  INSERT INTO tm VALUES (1, CAST('10:00:00.5' AS TIME), CAST('10:00:00.56' AS TIME(1)),
    CAST('23:59:59.999999' AS TIME(6)));
  INSERT INTO ts VALUES
    (1, CAST('2024-01-01 10:00:00' AS TIMESTAMP(0)), CAST('2024-01-01 10:00:00.123456' AS TIMESTAMP(6)),
     TO_TIMESTAMP_LTZ(1704103200123, 3)),
    (2, CAST('2024-01-01 10:00:00' AS TIMESTAMP(0)), CAST('2024-01-01 10:00:00.123999' AS TIMESTAMP(6)),
     TO_TIMESTAMP_LTZ(-1, 3));
END;
