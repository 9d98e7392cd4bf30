SELECT 1 .x, 1.5 .y, 4.2E1 .z, (2).w FROM t WHERE 1000000 .a * price < 5;
