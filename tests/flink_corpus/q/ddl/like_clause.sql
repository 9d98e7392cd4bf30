-- CREATE TABLE ... LIKE with overriding options
-- oracle: SELECT user_id FROM customers
CREATE TABLE cust2 WITH ('path' = 'data/customers.csv') LIKE customers (OVERWRITING OPTIONS);
SELECT user_id FROM cust2;
