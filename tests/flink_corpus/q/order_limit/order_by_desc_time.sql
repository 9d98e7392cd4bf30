-- Queries > ORDER BY: descending time attribute (refused on streams by Flink)
SELECT bid_id FROM bids ORDER BY bidtime DESC;
