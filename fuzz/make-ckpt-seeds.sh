#!/usr/bin/env bash
# Makes the seed corpus of the checkpoint reader's fuzz target
# (fuzz/fuzz_ckpt.c) from real checkpoints: a small SQL job (CSV -> TUMBLE
# window -> filesystem sink) run by `weir run` with checkpoints on the heap
# backend, on RocksDB with incremental checkpoints, and with unaligned
# checkpoints, so every format version is there. Each seed is the target's
# selector byte followed by the file's bytes:
#   00 / 80  a _metadata (80: the target repairs the CRC after mutating);
#   01       a subtask state file (WSNP);
#   82       one key group's keyed state (WSKG), cut out of a state file.
#
#   fuzz/make-ckpt-seeds.sh WEIR_BINARY [OUT_DIR]   (default fuzz/seeds/ckpt)
set -euo pipefail
weir="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$(cd "$(dirname "$0")/.." && pwd)"
out="${2:-$src/fuzz/seeds/ckpt}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d /tmp/weir-ckpt-seeds-XXXXXX)"
trap 'rm -rf "$work"' EXIT
cd "$work"
awk 'BEGIN { srand(3); for (i = 0; i < 4000; i++)
  printf "k%d,%d,%d\n", int(rand() * 6), int(rand() * 100), 1000000 + i * 3 }' > in.csv
cat > job.sql <<'EOF'
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3),
  cnt BIGINT, total BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst
SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY k, window_start, window_end;
EOF
run() { # $1: name; the rest: -D options
  local name="$1"
  shift
  rm -rf out "ck-$name" "st-$name"
  "$weir" run job.sql -D parallelism.default=2 -D "state.checkpoints.dir=ck-$name" \
    -D execution.checkpointing.interval=1ms -D state.checkpoints.num-retained=3 \
    -D "weir.state.dir=st-$name" "$@" > /dev/null 2>&1
}
run memory -D state.backend.type=memory
run rocksdb -D state.backend.type=rocksdb -D state.backend.incremental=true
run unaligned -D state.backend.type=memory -D execution.checkpointing.unaligned=true
python3 - "$work" "$out" <<'EOF'
import os, sys
work, out = sys.argv[1], sys.argv[2]
def varint(b, i):
    x = s = 0
    while True:
        c = b[i]; i += 1
        x |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return x, i
def key_groups(b):
    """The WSKG chunks of a WSNP state file (runtime/checkpoint.h)."""
    i = 5
    for _ in range(3):
        _, i = varint(b, i)
    n_ops, i = varint(b, i)
    for _ in range(n_ops):
        _, i = varint(b, i)              # node
        n, i = varint(b, i); i += max(n - 1, 0)   # name (length + 1)
        n, i = varint(b, i); i += n      # operator state
        n_kg, i = varint(b, i)
        for _ in range(n_kg):
            i += 4                       # kg
            n, i = varint(b, i)
            if n:
                yield b[i:i + n]
            i += n
            n, i = varint(b, i); i += n  # timers
def put(name, sel, data):
    if len(data) + 1 > 16384:
        return
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([sel]) + data)
for run in ("memory", "rocksdb", "unaligned"):
    root = os.path.join(work, "ck-" + run)
    if not os.path.isdir(root):
        continue
    n_kg = 0
    for chk in sorted(os.listdir(root)):
        d = os.path.join(root, chk)
        if not chk.startswith("chk-") or not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            data = open(os.path.join(d, fn), "rb").read()
            if fn == "_metadata":
                put("%s-meta" % run, 0x00, data)
                put("%s-meta-fix" % run, 0x80, data)
            elif data[:4] == b"WSNP":
                put("%s-%s" % (run, fn), 0x01, data)
                try:
                    for kg in key_groups(data):
                        if n_kg < 4:
                            put("kg-%s-%d" % (run, n_kg), 0x82, kg)
                            n_kg += 1
                except IndexError:
                    pass
        break  # one checkpoint per run is enough
print("make-ckpt-seeds: %d seeds in %s" % (len(os.listdir(out)), out))
EOF
