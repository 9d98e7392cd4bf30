-- LEFT JOIN LATERAL over a derived table that reads the FROM item before
-- it takes ON TRUE (its conditions belong in the derived table's WHERE);
-- another ON is refused where it stands.
CREATE TABLE c (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, v INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.v FROM c LEFT JOIN LATERAL (SELECT v FROM d WHERE d.id = c.id) x ON x.v > 1;
