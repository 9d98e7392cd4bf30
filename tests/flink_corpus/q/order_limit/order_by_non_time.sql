-- Queries > ORDER BY: a non-time column without LIMIT (refused on streams by Flink too)
-- flink-refuses
SELECT bid_id FROM bids ORDER BY price;
