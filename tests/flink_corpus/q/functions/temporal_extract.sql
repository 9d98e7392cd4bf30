-- Functions > Temporal: EXTRACT, YEAR, MONTH, DAYOFMONTH, HOUR, MINUTE, SECOND, QUARTER, WEEK
-- oracle: VALUES (2024, 4, 15, 8, 5, 0, 2, 16)
SELECT EXTRACT(YEAR FROM bidtime), MONTH(bidtime), DAYOFMONTH(bidtime), HOUR(bidtime), MINUTE(bidtime), SECOND(bidtime), QUARTER(bidtime), WEEK(bidtime) FROM bids WHERE bid_id = 1;
