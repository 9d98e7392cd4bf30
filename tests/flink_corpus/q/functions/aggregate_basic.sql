-- Functions > Aggregate: COUNT, SUM, AVG, MIN, MAX, SUM0 over a table
-- oracle: SELECT COUNT(*), SUM(price), AVG(price), MIN(price), MAX(price) FROM bids
SELECT COUNT(*), SUM(price), AVG(CAST(price AS DOUBLE)), MIN(price), MAX(price) FROM bids;
