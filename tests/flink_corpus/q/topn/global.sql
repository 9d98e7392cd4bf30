-- Queries > Top-N: without PARTITION BY
-- oracle: SELECT bid_id, price FROM bids ORDER BY price DESC LIMIT 3
SELECT bid_id, price FROM (SELECT bid_id, price, ROW_NUMBER() OVER (ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 3;
