CREATE TEMPORARY VIEW user_events AS
  SELECT user_id, page, `ts` FROM events WHERE page NOT LIKE '/health%' AND user_id IS NOT NULL;
SELECT user_id, window_start, window_end, COUNT(DISTINCT page) AS pages,
       MAX(ts) - MIN(ts) AS span
FROM TABLE(SESSION(TABLE user_events PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '30' MINUTES))
GROUP BY user_id, window_start, window_end;
SELECT user_id, SESSION_START(ts, INTERVAL '30' MINUTE), SESSION_END(ts, INTERVAL '30' MINUTE), COUNT(*)
FROM user_events GROUP BY user_id, SESSION(ts, INTERVAL '30' MINUTE);
