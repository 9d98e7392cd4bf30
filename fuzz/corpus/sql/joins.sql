SELECT o.id, o.amount * r.rate AS converted, s.ship_time
FROM orders AS o
LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency
JOIN shipments s ON o.id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time
CROSS JOIN UNNEST(o.tags) AS t (tag)
WHERE o.amount > 10.5 OR o.vip IS TRUE
ORDER BY o.id LIMIT 100;
SELECT a.k, b.v FROM a FULL OUTER JOIN b USING (k), LATERAL TABLE(split(a.s, ',')) AS w(word);
