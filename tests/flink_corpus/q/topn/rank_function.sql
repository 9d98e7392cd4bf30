-- Queries > Top-N: RANK() (Flink's streaming Top-N takes only ROW_NUMBER)
-- flink-refuses
SELECT * FROM (SELECT supplier, item, RANK() OVER (PARTITION BY supplier ORDER BY price DESC) AS rk FROM bids) WHERE rk <= 2;
