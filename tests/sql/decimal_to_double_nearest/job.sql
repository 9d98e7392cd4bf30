-- A DECIMAL of up to 18 digits becomes the double nearest it (Java's
-- BigDecimal.doubleValue, as Flink casts), also where it has more digits
-- than a double keeps: weir once divided the unscaled value, itself
-- rounded to a double, by 10^scale, rounding twice: 12345678901234.567
-- became 12345678901234.568 (not .566), so it missed the DOUBLE read from the
-- same text in '=' and in a join on DECIMAL and DOUBLE keys (which meet as
-- doubles). n = (id, DECIMAL(18, 3), DOUBLE) of the same text. Worked by
-- hand (Python's float(Decimal(text)) and repr): every d = f is TRUE, and the
-- join pairs each id with itself.
CREATE TABLE n (id INT, d DECIMAL(18, 3), f DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'n.csv', 'format' = 'csv');
CREATE TABLE cast_eq (id INT, c DOUBLE, eq BOOLEAN) WITH ('connector' = 'print', 'print-identifier' = 'cast_eq');
CREATE TABLE joined (a INT, b INT) WITH ('connector' = 'print', 'print-identifier' = 'joined');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO cast_eq SELECT id, CAST(d AS DOUBLE), d = f FROM n;
  INSERT INTO joined SELECT x.id, y.id FROM n AS x JOIN n AS y ON x.d = y.f;
END;
