-- Queries > ORDER BY: descending time attribute (refused on streams by Flink)
-- flink-refuses
SELECT bid_id FROM bids ORDER BY bidtime DESC;
