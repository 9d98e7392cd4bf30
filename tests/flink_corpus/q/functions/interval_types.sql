-- Types: INTERVAL values as columns (INTERVAL DAY TO SECOND)
SELECT bidtime - TIMESTAMP '2024-04-15 08:00:00' FROM bids;
