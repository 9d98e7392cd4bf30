-- Queries > Windowing TVF over a view that UNNESTs an array (the row keeps its event time)
-- oracle: VALUES ('2024-03-01 00:00:00', 3)
CREATE VIEW tagged AS SELECT e.id, t.tag, e.ets FROM events AS e CROSS JOIN UNNEST(e.tags) AS t(tag);
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE tagged, DESCRIPTOR(ets), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
