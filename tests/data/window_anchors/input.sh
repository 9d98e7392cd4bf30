#!/usr/bin/env bash
# tests/data/window_anchors/input.sh FILE - the input of job.sql, shared by
# make.sh and the tests that run the job: 200 rows, keys k0..k4, 100 ms apart.
for ((i = 0; i < 200; i++)); do
  printf 'k%d,%d,2024-01-01 00:00:%02d.%d00\n' $((i % 5)) $i $((i / 10)) $((i % 10))
done > "$1"
