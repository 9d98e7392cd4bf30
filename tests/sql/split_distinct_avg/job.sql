-- Split distinct aggregation with AVG (4 buckets): an AVG of an exact
-- number splits as in Flink, SUM and COUNT of its rows in the partial
-- aggregation (with its DISTINCT and FILTER), SUM and SUM0 of those in the
-- final one, divided after it. The result is the unsplit AVG's, type and
-- rounding: INT and BIGINT averages truncate toward zero, a DECIMAL(10, 2)
-- one is DECIMAL(38, 6), HALF_UP. Expected rows by hand (t.json):
--   a: v {7, -2, 7}: 12 / 3 = 4; DISTINCT {7, -2}: 5 / 2 = 2 (2.5 cut);
--      w where v > 0 {-5, 4}: -1 / 2 = 0 (-0.5 cut toward zero);
--      d {1.00, 0.01, 2.50}: 3.51 / 3 = 1.170000 (also DISTINCT);
--      DISTINCT w where u = 'x' {-5, 4}: 0; u {x, y}: 2.
--   b: v {-3, -4}: -7 / 2 = -3 (not -4), DISTINCT the same; no v > 0:
--      NULL; d 3.35 / 2 = 1.675000; no u = 'x': NULL; u {z}: 1.
--   c: v {1, 1}: 1, DISTINCT {1}: 1; w where v > 0 {1, 7}: 4;
--      d {0.01, 0.01, 0.00}: 0.02 / 3 = 0.006667 (HALF_UP of 0.0066666...),
--      DISTINCT {0.01, 0.00}: 0.005000; DISTINCT w where u = 'x' {2}
--      (the NULL w skipped): 2; u {x, y}: 2.
-- over_upd: over an updating input (per (g, u) the MAX(v), which rises
-- and is retracted as rows come): a {7, -2, NULL}: AVG 5 / 2 = 2 (and
-- DISTINCT), u 2; b {-3} (the max of -3, -4): -3, u 1; c {NULL, 1}: 1,
-- u 2. The final aggregation takes back the partial sums and counts.
-- per_window: a TUMBLE of 5 s (row i at second i) with one distinct column
-- splits too (a partial window aggregation per bucket of d): a [0, 5) rows
-- 1-4: AVG(v) 4, d {1.00, 0.01, 2.50}: 1.170000, 3 distinct; b [5, 10):
-- -3, {3.33, 0.02}: 1.675000, 2; c [5, 10) rows 7-9: v {1}: 1, d {0.01}
-- (twice): 0.010000, 1; c [10, 15) row 10: 1, {0.00}: 0.000000, 1.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '4';
CREATE TABLE t (g STRING, u STRING, v INT, w BIGINT, d DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE per_group (g STRING, cu BIGINT, av INT, adv INT, afw BIGINT, ad DECIMAL(38, 6), add_ DECIMAL(38, 6),
    adw BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'per_group', 'format' = 'debezium-json');
CREATE TABLE over_upd (g STRING, am INT, adm INT, cu BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'over_upd', 'format' = 'debezium-json');
CREATE TABLE per_window (g STRING, ws STRING, av INT, add_ DECIMAL(38, 6), cd BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'per_window', 'format' = 'debezium-json');
CREATE VIEW per_user AS SELECT g, u, MAX(v) AS m FROM t GROUP BY g, u;
EXECUTE STATEMENT SET BEGIN
INSERT INTO per_group
SELECT g, COUNT(DISTINCT u), AVG(v), AVG(DISTINCT v), AVG(w) FILTER (WHERE v > 0), AVG(d), AVG(DISTINCT d),
  AVG(DISTINCT w) FILTER (WHERE u = 'x')
FROM t GROUP BY g;
INSERT INTO over_upd SELECT g, AVG(m), AVG(DISTINCT m), COUNT(DISTINCT u) FROM per_user GROUP BY g;
INSERT INTO per_window SELECT g, CAST(window_start AS STRING), AVG(v), AVG(DISTINCT d), COUNT(DISTINCT d)
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY g, window_start, window_end;
END;
