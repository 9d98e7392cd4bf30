-- Flink's collection functions over ARRAY and MAP columns read from JSON
-- (a full row, empty collections, NULL collections). Expected rows derived
-- by hand from Flink's documented rules: NULL when a collection argument is
-- NULL; ARRAY_APPEND / ARRAY_PREPEND / ARRAY_REMOVE take a NULL element as
-- a value; ARRAY_SLICE offsets are 1-based, negative from the end, 0 as 1,
-- the end inclusive; ARRAY_SORT puts NULLs first ascending and last
-- descending unless told; ARRAY_UNION / INTERSECT / EXCEPT give distinct
-- elements in first-occurrence order; ARRAY_MAX / ARRAY_MIN skip NULLs;
-- ARRAY_JOIN skips NULL elements unless given a replacement; SPLIT keeps
-- empty pieces and gives [] for ''; MAP_UNION lets the later map win.
CREATE TABLE t (id INT, a ARRAY<INT>, b ARRAY<INT>, s ARRAY<STRING>, m MAP<STRING, INT>, str STRING)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, ARRAY_APPEND(a, 9), ARRAY_PREPEND(a, CAST(NULL AS INT)), ARRAY_CONCAT(a, b), ARRAY_POSITION(a, 1),
       ARRAY_REMOVE(a, 1), ARRAY_REMOVE(a, CAST(NULL AS INT)), ARRAY_REVERSE(a)
FROM t;

SELECT id, ARRAY_SLICE(a, 2, 4), ARRAY_SLICE(a, -2), ARRAY_SLICE(a, 4, 2), ARRAY_SORT(a), ARRAY_SORT(a, FALSE),
       ARRAY_SORT(a, TRUE, FALSE), ARRAY_MAX(a), ARRAY_MIN(a)
FROM t;

SELECT id, ARRAY_UNION(a, b), ARRAY_INTERSECT(a, b), ARRAY_EXCEPT(a, b), ARRAY_JOIN(s, '|'), ARRAY_JOIN(s, '|', 'N'),
       ARRAY_MAX(s), SPLIT(str, ',')
FROM t;

SELECT id, MAP_ENTRIES(m), MAP_FROM_ARRAYS(ARRAY_SLICE(s, 1, 2), ARRAY_SLICE(a, 1, 2)), MAP_UNION(m, MAP['k2', 20, 'k3', 30])
FROM t;

SELECT SPLIT('héj', ''), ARRAY_SORT(ARRAY['b', 'B', 'a']), ARRAY_SLICE(ARRAY[1, 2, 3], 0, 0), ARRAY_SLICE(ARRAY[1, 2, 3], -5, 9);
