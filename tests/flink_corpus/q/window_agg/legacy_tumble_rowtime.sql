-- Queries > Group Window Aggregation (legacy): TUMBLE_ROWTIME feeding a second window
-- oracle: SELECT tumble(bidtime, 600), SUM(price) FROM bids GROUP BY 1
CREATE VIEW five AS SELECT TUMBLE_ROWTIME(bidtime, INTERVAL '5' MINUTE) AS rt, SUM(price) AS s FROM bids GROUP BY TUMBLE(bidtime, INTERVAL '5' MINUTE);
SELECT TUMBLE_START(rt, INTERVAL '10' MINUTE), SUM(s) FROM five GROUP BY TUMBLE(rt, INTERVAL '10' MINUTE);
