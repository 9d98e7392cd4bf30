-- Queries > Group Aggregation: ARRAY_AGG(DISTINCT), each value once in the order it first came
-- oracle: VALUES ('s1', '[C, A, E, B]'), ('s2', '[D, B, F]'), ('s3', '[C, A]')
SELECT supplier, ARRAY_AGG(DISTINCT item) FROM (SELECT * FROM bids UNION ALL SELECT * FROM bids) GROUP BY supplier;
