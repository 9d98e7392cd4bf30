-- CREATE TABLE ... LIKE with an added watermark and EXCLUDING ALL
CREATE TABLE bid_copy (WATERMARK FOR bidtime AS bidtime) WITH ('connector' = 'blackhole') LIKE bids (EXCLUDING ALL);
INSERT INTO bid_copy SELECT bid_id, item, price, supplier, bidtime FROM bids;
