"""The oracle of tests/test_crash_sql_proctime.sh: OVER aggregations ordered
by a processing-time attribute, computed from the input file alone.

A processing-time OVER orders a partition's rows by their arrival at the
operator; the input is one file (one split) and every exchange keeps the
order of one producer, so a partition's rows arrive in file order, however
the job was killed and restored. Then

  rows   ROWS BETWEEN 3 PRECEDING: SUM, COUNT, MAX over the row and the three
         before it in its partition, and LAG(v) (the row before, or null);
  unb    RANGE UNBOUNDED PRECEDING (no peers by processing time): the running
         SUM and COUNT of the partition;
  glob   no PARTITION BY, ROWS BETWEEN 5 PRECEDING: SUM and MIN over the whole
         file in file order;

are exact. RANGE BETWEEN INTERVAL '1' HOUR PRECEDING (range) makes the rows
that arrive in one millisecond of the clock peers, which the system clock
decides; within the hour every earlier row is in the frame, so each row's
COUNT is the position (in file order, within its partition) of the last row
of its group of peers and its SUM the sum of the rows up to there: the rows
of one COUNT c must be exactly the positions after the previous COUNT, up
to c. That is what is checked for range.

    python3 proctime_over_model.py IN.csv RESULT.txt

RESULT.txt: lines "NAME,k,seq,a,b[,c[,d]]" (NAME one of the four above).
Prints the problems found and exits 1 if there are any.
"""

import collections
import sys


def main(in_path, result_path):
    parts = collections.defaultdict(list)  # k -> [(seq, v)] in file order
    rows = []
    with open(in_path) as f:
        for line in f:
            k, v, seq = line.rstrip("\n").split(",")
            parts[k].append((int(seq), int(v)))
            rows.append((k, int(seq), int(v)))

    want = collections.Counter()
    for k, part in parts.items():
        total = 0
        for i, (seq, v) in enumerate(part):
            frame = [x for _, x in part[max(0, i - 3):i + 1]]
            lag = str(part[i - 1][1]) if i else ""
            want[f"rows,{k},{seq},{sum(frame)},{len(frame)},{max(frame)},{lag}"] += 1
            total += v
            want[f"unb,{k},{seq},{total},{i + 1}"] += 1
    for i, (k, seq, v) in enumerate(rows):
        frame = [x for _, _, x in rows[max(0, i - 5):i + 1]]
        want[f"glob,{k},{seq},{sum(frame)},{min(frame)}"] += 1

    got = collections.Counter()
    ranged = collections.defaultdict(dict)  # k -> seq -> (count, sum)
    problems = []
    with open(result_path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("range,"):
                _, k, seq, c, s = line.split(",")
                if int(seq) in ranged[k]:
                    problems.append(f"range: row {k},{seq} came out twice")
                ranged[k][int(seq)] = (int(c), int(s))
            else:
                got[line] += 1
    for line in sorted((want - got).keys())[:5]:
        problems.append(f"missing: {line}")
    for line in sorted((got - want).keys())[:5]:
        problems.append(f"unexpected: {line}")

    for k, part in parts.items():
        out = ranged.get(k, {})
        prefix = [0]
        for _, v in part:
            prefix.append(prefix[-1] + v)
        group_start = 0  # the first position (0-based) of the current group of peers
        for i, (seq, _) in enumerate(part):
            if seq not in out:
                problems.append(f"range: row {k},{seq} is missing")
                break
            c, s = out[seq]
            # the rows of one group share its COUNT: it ends at position c
            if c < i + 1 or (i > group_start and c != out[part[i - 1][0]][0]):
                problems.append(f"range: row {k},{seq} (position {i + 1}) has COUNT {c}, "
                                f"its group starts at position {group_start + 1}")
                break
            if s != prefix[c]:
                problems.append(f"range: row {k},{seq} has SUM {s}, the rows up to position {c} sum to {prefix[c]}")
                break
            if c == i + 1:
                group_start = i + 1
        else:
            if group_start != len(part):
                problems.append(f"range: partition {k}'s last rows count {out[part[-1][0]][0]} rows, "
                                f"it has {len(part)}")
        extra = set(out) - {seq for seq, _ in part}
        if extra:
            problems.append(f"range: rows {k},{sorted(extra)[:3]} are not in the input")
    for k in set(ranged) - set(parts):
        problems.append(f"range: partition {k} is not in the input")

    for p in problems[:20]:
        print(p)
    n_range = sum(len(v) for v in ranged.values())
    if not problems:
        print(f"model: {sum(got.values())} rows/unb/glob rows exact, {n_range} range rows consistent")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
