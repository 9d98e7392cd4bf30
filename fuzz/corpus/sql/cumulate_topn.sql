WITH daily AS (
  SELECT item, window_start, window_end, SUM(amount) AS total
  FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR, INTERVAL '1' DAY))
  GROUP BY item, window_start, window_end
)
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn FROM daily
) WHERE rn <= 3;
