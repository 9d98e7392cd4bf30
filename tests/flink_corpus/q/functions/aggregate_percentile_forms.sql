-- Functions > Aggregate: PERCENTILE with an ARRAY of percentages and with a frequency (Flink 2.0)
-- oracle: VALUES ('s1', '[3.0, 8.0]', 8.0), ('s2', '[4.5, 6.0]', 4.0), ('s3', '[8.0, 9.0]', 9.0)
SELECT supplier, PERCENTILE(price, ARRAY[0.5, 1.0]), PERCENTILE(price, 0.5, bid_id) FROM bids GROUP BY supplier;
