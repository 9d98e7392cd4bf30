-- CAST between nested types whose elements differ in type, as Flink's
-- cast rules for ARRAY, MAP and ROW allow: element by element with the
-- scalar casts (NULL elements stay NULL, a MAP's keys and values, each ROW
-- field, nested arrays). TRY_CAST gives NULL for a value with an element
-- that does not convert. Expected rows derived by hand.
CREATE TABLE t (id INT, a ARRAY<INT>, s ARRAY<STRING>, m MAP<STRING, INT>, r ROW<x INT, y STRING>)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, CAST(a AS ARRAY<BIGINT>), CAST(a AS ARRAY<STRING>), TRY_CAST(s AS ARRAY<INT>), CAST(m AS MAP<STRING, DOUBLE>),
       CAST(r AS ROW<x BIGINT, y STRING>), CAST(ARRAY[ARRAY[1, 2], ARRAY[3]] AS ARRAY<ARRAY<DECIMAL(5, 1)>>),
       CARDINALITY(CAST(a AS ARRAY<DOUBLE>))
FROM t;
