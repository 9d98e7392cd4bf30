-- Queries > Group Aggregation: COLLECT into a MULTISET
-- oracle: VALUES ('s1', '{A=1, B=1, C=1, E=1}'), ('s2', '{B=1, D=2, F=1}'), ('s3', '{A=1, C=1}')
SELECT supplier, COLLECT(item) FROM bids GROUP BY supplier;
