-- The PostgreSQL side: weir writes into existing tables.
CREATE TABLE billing (
  advertiser   text,
  window_start timestamp(3),
  window_end   timestamp(3),
  clicks       bigint,
  amount       numeric(10, 2)
);
CREATE TABLE totals (
  advertiser text PRIMARY KEY,
  clicks     bigint,
  amount     numeric(10, 2)
);
