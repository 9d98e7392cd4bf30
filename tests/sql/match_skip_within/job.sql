-- MATCH_RECOGNIZE: PREV, SUM, MATCH_ROWTIME(), AFTER MATCH SKIP TO NEXT ROW,
-- WITHIN, and a late row. Hand-derived, per partition in time order:
--   a: 1 5 6 2 7 8 3 at seconds 1 2 3 4 5 9 10; the row (0 at 2.5 s) comes
--      after the watermark passed 4 s: late, dropped. From 1: S=1, UP=5, 6
--      (each above the row before), DOWN=2 -> (1, 6, 2, 4 s, 11). From 5:
--      one UP (6) only. From 6: 2 is no UP. From 2 (4 s): UP=7, then 8 is 5 s
--      after the start: outside WITHIN, so one UP only (without WITHIN: UP
--      7, 8, DOWN 3). From 7 and 8: too few UP rows.
--   b: 1 2 3 1 -> (1, 3, 1, 4 s, 5); from 2: one UP (3) only.
CREATE TABLE e (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');
SELECT * FROM e MATCH_RECOGNIZE (
  PARTITION BY k
  ORDER BY ts
  MEASURES FIRST(S.v) AS s, LAST(UP.v) AS top, DOWN.v AS d, MATCH_ROWTIME() AS mt, SUM(UP.v) AS su
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (S UP{2,} DOWN) WITHIN INTERVAL '5' SECOND
  DEFINE UP AS UP.v > PREV(UP.v), DOWN AS DOWN.v < PREV(DOWN.v)
);
