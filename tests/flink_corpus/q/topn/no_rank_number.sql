-- Queries > Top-N: no ranking number in the output
-- oracle: SELECT supplier, item FROM (SELECT supplier, item, ROW_NUMBER() OVER (PARTITION BY supplier ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 2
SELECT supplier, item FROM (SELECT supplier, item, ROW_NUMBER() OVER (PARTITION BY supplier ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 2;
