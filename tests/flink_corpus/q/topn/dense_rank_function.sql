-- Queries > Top-N: DENSE_RANK()
-- flink-refuses
SELECT * FROM (SELECT supplier, item, DENSE_RANK() OVER (PARTITION BY supplier ORDER BY price DESC) AS rk FROM bids) WHERE rk <= 2;
