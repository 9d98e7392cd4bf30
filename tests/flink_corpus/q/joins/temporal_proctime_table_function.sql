-- Queries > Joins > Temporal Table Function join: LATERAL TABLE(Rates(o.pt)) (a Table API registered function)
SELECT o.order_id, r.rate FROM orders_pt AS o, LATERAL TABLE (RatesFn(o.pt)) AS r WHERE o.currency = r.currency;
