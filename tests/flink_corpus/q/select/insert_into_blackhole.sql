-- Connectors > BlackHole sink
CREATE TABLE bh WITH ('connector' = 'blackhole') LIKE orders (EXCLUDING ALL);
INSERT INTO bh SELECT * FROM orders;
