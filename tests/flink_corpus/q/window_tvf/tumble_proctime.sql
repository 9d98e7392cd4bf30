-- Queries > Windowing TVF: TUMBLE over a processing-time attribute
-- mode: explain
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders_pt, DESCRIPTOR(pt), INTERVAL '1' MINUTES)) GROUP BY window_start, window_end;
