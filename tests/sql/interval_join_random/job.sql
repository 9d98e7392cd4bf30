-- An interval join over two time-ordered inputs (no row is ever late:
-- each input is in time order and the bounds contain 0), at every
-- parallelism: the check compares the result with a nested-loop join of
-- the files. Stored rows expire as the watermark passes, so a wrong
-- expiry shows as a missing pair. The join's left time stays a time
-- attribute: a TUMBLE window counts the pairs, and no pair may be late
-- for it (the join holds its watermark back by the lower bound).
CREATE TABLE a (k INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE out_csv (k INT, ams BIGINT, bms BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');

INSERT INTO out_csv
SELECT a.k, a.ms, b.ms FROM a JOIN b
  ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts + INTERVAL '0.5' SECOND;

CREATE TABLE out_win (n BIGINT, first_ms BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_win', 'format' = 'csv');
CREATE VIEW pairs AS
SELECT a.k, a.ms, a.ts FROM a JOIN b
  ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts + INTERVAL '0.5' SECOND;
INSERT INTO out_win
SELECT COUNT(*), MIN(ms) FROM TABLE(TUMBLE(TABLE pairs, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
