-- Functions > Aggregate: PERCENTILE (Flink 2.0)
SELECT PERCENTILE(price, 0.5) FROM bids;
