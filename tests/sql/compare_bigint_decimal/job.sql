-- A BIGINT compared with a DECIMAL of up to 18 digits and scale 0: their
-- common type, DECIMAL(19, 0), has more digits than 64 bits hold, and the
-- two are compared exactly (weir once compared that 128-bit type's halves
-- as if they were BIGINTs: 0 = 7 and 1 = 10 were TRUE). d = 0, 1, 7, -9;
-- b = 7, 10, 2^53, 2^31, -2^63. Worked by hand:
--   cmp: only d 7 = b 7; d < b for every pair but those with b -2^63 and
--        d 7 with b 7
--   out_not_in (NOT IN over nullable columns, decided by d.k = b.k in
--        the join's condition; a changelog, folded by the check): 1, 2,
--        4 (d 7 is in b)
CREATE TABLE d (id INT, k DECIMAL(1, 0)) WITH ('connector' = 'filesystem', 'path' = 'd.csv', 'format' = 'csv');
CREATE TABLE b (id INT, k BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE cmp (a INT, b INT, eq BOOLEAN, lt BOOLEAN, ne BOOLEAN) WITH ('connector' = 'print', 'print-identifier' = 'cmp');
CREATE TABLE out_not_in (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in', 'format' = 'debezium-json');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO cmp SELECT d.id, b.id, d.k = b.k, d.k < b.k, b.k <> d.k FROM d, b;
  INSERT INTO out_not_in SELECT id FROM d WHERE k NOT IN (SELECT k FROM b);
END;
