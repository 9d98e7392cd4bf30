-- Functions > Type Conversion: TYPEOF
-- oracle: VALUES ('INT NOT NULL', 'STRING')
SELECT TYPEOF(1), TYPEOF(name) FROM customers WHERE user_id = 'u1';
