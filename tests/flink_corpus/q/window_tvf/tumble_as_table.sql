-- Queries > Windowing TVF: SELECT * FROM TABLE(TUMBLE(...)) assigns windows without aggregating
-- oracle: SELECT bid_id, item, price, supplier, bidtime, tumble(bidtime, 600), tsadd(tumble(bidtime, 600), 600), tsadd(tumble(bidtime, 600), 599.999) FROM bids
SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES));
