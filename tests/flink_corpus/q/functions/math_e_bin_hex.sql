-- Functions > Arithmetic: E(), BIN, HEX, UNHEX
-- oracle: VALUES (2.718282, '1100', 'FF', '6162')
SELECT E(), BIN(12), HEX(255), HEX('ab');
