-- Queries > Group Aggregation: VAR_POP / STDDEV_SAMP
-- oracle: SELECT supplier, SUM(price * price) * 1.0 / COUNT(*) - (SUM(price) * 1.0 / COUNT(*)) * (SUM(price) * 1.0 / COUNT(*)) FROM bids GROUP BY supplier
SELECT supplier, VAR_POP(CAST(price AS DOUBLE)) FROM bids GROUP BY supplier;
