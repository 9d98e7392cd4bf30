-- Queries > Top-N: ROW_NUMBER() per partition, rn <= 2
-- oracle: SELECT supplier, item, price, rn FROM (SELECT supplier, item, price, ROW_NUMBER() OVER (PARTITION BY supplier ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 2
SELECT * FROM (SELECT supplier, item, price, ROW_NUMBER() OVER (PARTITION BY supplier ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 2;
