-- Types: INTERVAL values as columns (TIMESTAMP - TIMESTAMP without a unit: Calcite's '-' takes NUMERIC, INTERVAL or DATETIME - INTERVAL only, so Flink refuses it)
-- flink-refuses
SELECT bidtime - TIMESTAMP '2024-04-15 08:00:00' FROM bids;
