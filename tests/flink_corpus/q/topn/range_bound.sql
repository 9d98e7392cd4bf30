-- Queries > Top-N: rn BETWEEN 2 AND 3
-- oracle: SELECT bid_id, rn FROM (SELECT bid_id, ROW_NUMBER() OVER (ORDER BY price DESC) AS rn FROM bids) WHERE rn BETWEEN 2 AND 3
SELECT bid_id, rn FROM (SELECT bid_id, ROW_NUMBER() OVER (ORDER BY price DESC) AS rn FROM bids) WHERE rn BETWEEN 2 AND 3;
