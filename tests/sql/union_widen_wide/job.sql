-- A set operation over a DECIMAL(38, 0) and a DECIMAL(12, 4) keeps all 38
-- integral digits and cuts the scale to fit (DECIMAL(38, 0)), as Flink
-- widens: a value of either side always fits, rounded half-up (1.25 to 1,
-- -2.5 to -3, so the INTERSECT finds -3 on both sides). The widened column is
-- NOT NULL where both inputs are.
CREATE TABLE big (x DECIMAL(38, 0) NOT NULL, s STRING) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');
CREATE TABLE scaled (x DECIMAL(12, 4) NOT NULL, s STRING) WITH ('connector' = 'filesystem', 'path' = 'scaled.csv', 'format' = 'csv');
CREATE TABLE i (x INT NOT NULL, s STRING) WITH ('connector' = 'filesystem', 'path' = 'i.csv', 'format' = 'csv');
CREATE TABLE d (x DECIMAL(5, 2) NOT NULL, s STRING) WITH ('connector' = 'filesystem', 'path' = 'd.csv', 'format' = 'csv');
CREATE TABLE wide (x STRING, t STRING, s STRING) WITH ('connector' = 'print', 'print-identifier' = 'wide');
CREATE TABLE inter (x STRING, t STRING) WITH ('connector' = 'print', 'print-identifier' = 'intersect');
CREATE TABLE not_null (x STRING, t STRING) WITH ('connector' = 'print', 'print-identifier' = 'not_null');
EXECUTE STATEMENT SET BEGIN
INSERT INTO wide SELECT CAST(x AS STRING), TYPEOF(x), s FROM (SELECT x, s FROM big UNION ALL SELECT x, s FROM scaled);
INSERT INTO inter SELECT CAST(x AS STRING), TYPEOF(x) FROM (SELECT x FROM big INTERSECT SELECT x FROM scaled);
INSERT INTO not_null SELECT CAST(x AS STRING), TYPEOF(x) FROM (SELECT x FROM i UNION ALL SELECT x FROM d);
END;
