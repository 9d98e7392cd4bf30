-- Queries > Window Aggregation: LISTAGG per window
-- oracle: VALUES ('2024-04-15 08:00:00', 'C;A;D'), ('2024-04-15 08:10:00', 'B;E;F;C'), ('2024-04-15 08:20:00', 'A;B;D')
SELECT window_start, LISTAGG(item, ';') FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
