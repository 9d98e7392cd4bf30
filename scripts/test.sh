#!/usr/bin/env bash
# Builds weir and runs the whole test suite (the README's test command).
#   scripts/test.sh            release build, all tests
#   scripts/test.sh --sanitize AddressSanitizer + UndefinedBehaviorSanitizer build
#   scripts/test.sh --tsan     ThreadSanitizer build of the weir command, and
#                              the tests that run it (every other SQL golden
#                              case at parallelism 4, kill-and-resume, CLI,
#                              stop signals): the
#                              Criterion runner itself cannot start under TSan
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build
flags=(-DWEIR_WERROR=ON)
ctest_args=()
case "${1:-}" in
--sanitize)
  dir=build-asan
  flags+=(-DWEIR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # The same tests, smaller: the plain run below does the full kill counts
  # and rounds; here every path runs under the sanitizers once or a few
  # times (an explicit setting in the environment wins).
  export WEIR_FUZZ_SECONDS=${WEIR_FUZZ_SECONDS:-3}
  export WEIR_KAFKA_CRASH_KILLS=${WEIR_KAFKA_CRASH_KILLS:-6}
  export WEIR_KAFKA_CRASH_KILLS_TXN=${WEIR_KAFKA_CRASH_KILLS_TXN:-2}
  export WEIR_KAFKA_CRASH_KILLS_EO=${WEIR_KAFKA_CRASH_KILLS_EO:-2}
  export WEIR_KAFKA_CL_ROUNDS=${WEIR_KAFKA_CL_ROUNDS:-1}
  export WEIR_KAFKA_CL_KILLS=${WEIR_KAFKA_CL_KILLS:-2}
  export WEIR_PG_CRASH_KILLS=${WEIR_PG_CRASH_KILLS:-5}
  export WEIR_PG_CDC_KILLS=${WEIR_PG_CDC_KILLS:-2}
  export WEIR_PG_DIFF_ROUNDS=${WEIR_PG_DIFF_ROUNDS:-2}
  export WEIR_PG_LOOKUP_ROUNDS=${WEIR_PG_LOOKUP_ROUNDS:-1}
  export WEIR_CLUSTER_ROWS=${WEIR_CLUSTER_ROWS:-8000}
  export WEIR_CLUSTER_KILLS=${WEIR_CLUSTER_KILLS:-3}
  export WEIR_CLUSTER_CRASH_ROWS=${WEIR_CLUSTER_CRASH_ROWS:-60000}
  export WEIR_CLUSTER_KILL_GAP=${WEIR_CLUSTER_KILL_GAP:-60}
  export WEIR_CLUSTER_MULTI_ROWS=${WEIR_CLUSTER_MULTI_ROWS:-3000}
  export WEIR_CLUSTER_MEMBERS_ROWS=${WEIR_CLUSTER_MEMBERS_ROWS:-16000}
  export WEIR_CLUSTER_MEMBERS_RATE=${WEIR_CLUSTER_MEMBERS_RATE:-500}
  export WEIR_CLUSTER_SP_ROWS=${WEIR_CLUSTER_SP_ROWS:-108000}
  export WEIR_CLUSTER_SP_RATE=${WEIR_CLUSTER_SP_RATE:-4500}
  export WEIR_CRASH_PROCTIME_KILLS=${WEIR_CRASH_PROCTIME_KILLS:-2}
  export WEIR_CLUSTER_EO_PG_KILLS=${WEIR_CLUSTER_EO_PG_KILLS:-2}
  export WEIR_CLUSTER_EO_KAFKA_KILLS=${WEIR_CLUSTER_EO_KAFKA_KILLS:-1}
  export WEIR_S3_KILLS=${WEIR_S3_KILLS:-3} WEIR_S3_ROWS=${WEIR_S3_ROWS:-100000}
  export WEIR_NATS_CRASH_KILLS=${WEIR_NATS_CRASH_KILLS:-3}
  export WEIR_NATS_CRASH_MSGS=${WEIR_NATS_CRASH_MSGS:-30000}
  export WEIR_NATS_DIFF_RUNS=${WEIR_NATS_DIFF_RUNS:-2}
  export WEIR_TJDIFF_JOBS=${WEIR_TJDIFF_JOBS:-8}
  export WEIR_MAPROWS_PARALLELISMS=${WEIR_MAPROWS_PARALLELISMS:-2}
  export WEIR_SETOPDIFF_JOBS=${WEIR_SETOPDIFF_JOBS:-6}
  export WEIR_SETOPWIDEN_JOBS=${WEIR_SETOPWIDEN_JOBS:-4}
  export WEIR_UDTFDIFF_JOBS=${WEIR_UDTFDIFF_JOBS:-3}
  export WEIR_OVERDIFF_JOBS=${WEIR_OVERDIFF_JOBS:-3}
  export WEIR_MATCHDIFF_JOBS=${WEIR_MATCHDIFF_JOBS:-3} WEIR_MATCHDIFF_LONG=${WEIR_MATCHDIFF_LONG:-6000}
  export WEIR_ITADIFF_CASES=${WEIR_ITADIFF_CASES:-3}
  export WEIR_JSONDIFF_JOBS=${WEIR_JSONDIFF_JOBS:-6}
  export WEIR_STRFNDIFF_JOBS=${WEIR_STRFNDIFF_JOBS:-3}
  export WEIR_PRINTFDIFF_JOBS=${WEIR_PRINTFDIFF_JOBS:-3}
  export WEIR_WSEMI_JOBS=${WEIR_WSEMI_JOBS:-6}
  export WEIR_WJOIN_JOBS=${WEIR_WJOIN_JOBS:-5}
  export WEIR_WTZ_JOBS=${WEIR_WTZ_JOBS:-4}
  export WEIR_NESTEDDIFF_ROUNDS=${WEIR_NESTEDDIFF_ROUNDS:-2}
  export WEIR_COLLECTDIFF_ROUNDS=${WEIR_COLLECTDIFF_ROUNDS:-2}
  export WEIR_JOINDIFF_CASES=${WEIR_JOINDIFF_CASES:-8}
  export WEIR_LAYOUT_JOBS=${WEIR_LAYOUT_JOBS:-16}
  export WEIR_KEYFILL_JOBS=${WEIR_KEYFILL_JOBS:-10}
  export WEIR_TOP1SKIP_JOBS=${WEIR_TOP1SKIP_JOBS:-10}
  export WEIR_TOPNC_JOBS=${WEIR_TOPNC_JOBS:-25}
  export WEIR_DCDIFF_JOBS=${WEIR_DCDIFF_JOBS:-16}
  export WEIR_GDC_CASES=${WEIR_GDC_CASES:-15}
  export WEIR_TOP1KEYS_JOBS=${WEIR_TOP1KEYS_JOBS:-8}
  export WEIR_IDLEDIFF_CASES=${WEIR_IDLEDIFF_CASES:-20}
  export GROUP_AGG_EVENTS=${GROUP_AGG_EVENTS:-3000}
  export WEIR_HYBRID_CRASH_KILLS=${WEIR_HYBRID_CRASH_KILLS:-2}
  export WEIR_HYBRID_CRASH_MSGS=${WEIR_HYBRID_CRASH_MSGS:-90000}
  export WEIR_HYBRID_DIFF_ROUNDS=${WEIR_HYBRID_DIFF_ROUNDS:-2}
  export WEIR_S3F_CASES=${WEIR_S3F_CASES:-1} WEIR_S3F_KILLS=${WEIR_S3F_KILLS:-2}
  export WEIR_DECIMAL_CASES=${WEIR_DECIMAL_CASES:-3}
  # the docs' examples, without the tables of keys and options (some 250
  # plans, each a process start under ASan; the plain run checks them)
  export WEIR_DOCS_TABLES=${WEIR_DOCS_TABLES:-0}
  export WEIR_CASTDIFF_JOBS=${WEIR_CASTDIFF_JOBS:-4}
  export WEIR_RETRACTDIFF_JOBS=${WEIR_RETRACTDIFF_JOBS:-20}
  export WEIR_MATHDIFF_JOBS=${WEIR_MATHDIFF_JOBS:-16}
  export WEIR_FMTDIFF_JOBS=${WEIR_FMTDIFF_JOBS:-24}
  export WEIR_TIME_DIFF_CASES=${WEIR_TIME_DIFF_CASES:-2}
  export WEIR_TTL_CASES=${WEIR_TTL_CASES:-24}
  export WEIR_STATE_MODEL_OPS=${WEIR_STATE_MODEL_OPS:-6000} WEIR_STATE_MODEL_BIG=${WEIR_STATE_MODEL_BIG:-60000}
  export WEIR_TPDIFF_JOBS=${WEIR_TPDIFF_JOBS:-4}
  export WEIR_WTOP1_JOBS=${WEIR_WTOP1_JOBS:-4}
  export WEIR_DATE_DIFF_CASES=${WEIR_DATE_DIFF_CASES:-2}
  export WEIR_USINGDIFF_JOBS=${WEIR_USINGDIFF_JOBS:-2} WEIR_SUBQDIFF_JOBS=${WEIR_SUBQDIFF_JOBS:-1}
  export WEIR_SCOPEDIFF_JOBS=${WEIR_SCOPEDIFF_JOBS:-2}
  export WEIR_PRUNEDIFF_JOBS=${WEIR_PRUNEDIFF_JOBS:-2}
  export WEIR_DDLDIFF_JOBS=${WEIR_DDLDIFF_JOBS:-12}
  export WEIR_INSCOLSDIFF_JOBS=${WEIR_INSCOLSDIFF_JOBS:-3}
  export WEIR_PARTDIFF_JOBS=${WEIR_PARTDIFF_JOBS:-4}
  export WEIR_REUSEDIFF_JOBS=${WEIR_REUSEDIFF_JOBS:-12}
  export WEIR_RESTORECHG_JOBS=${WEIR_RESTORECHG_JOBS:-3}
  export WEIR_CLI_TOOL_RESTORE=${WEIR_CLI_TOOL_RESTORE:-0}
  export WEIR_CORPUS_EVERY=${WEIR_CORPUS_EVERY:-8}
  export WEIR_LOG_ROUNDS=${WEIR_LOG_ROUNDS:-1}
  export WEIR_KAFKA_DIFF_CASES=${WEIR_KAFKA_DIFF_CASES:-1}
  export WEIR_ROWLOG1_PARALLELISMS=${WEIR_ROWLOG1_PARALLELISMS:-1 3}
  # each golden case once, at two or at four subtasks in turn (a sanitized
  # process costs several times a plain one, a fifth of a second of it to
  # start and end; the plain run does every case at 1, 2 and 4 (CI's at 1),
  # and ThreadSanitizer's run at 4 the cases run here at 2: by the case's
  # place among all cases, so the shards do not matter)
  export WEIR_GOLDEN_PARALLELISM=${WEIR_GOLDEN_PARALLELISM:-2 4}
  export WEIR_GOLDEN_ONE_EACH=${WEIR_GOLDEN_ONE_EACH:-1}
  # Installing and packaging (cmake --install, cpack) checks no memory
  # access of weir's; the plain run covers it. The processes x parallelism
  # combinations of a cluster run the code that test_cluster and
  # test_cluster_rescale run here: the plain run does them. The libFuzzer tests build
  # their own AddressSanitizer+UndefinedBehaviorSanitizer targets in every
  # run: here they would repeat the plain run's, with less time to fuzz.
  ctest_args+=(-E '^(test_install|test_fuzz|test_sql_fuzz|test_cluster_parallelism)$')
  ;;
--tsan)
  cmake -S . -B build-tsan -DWEIR_TSAN=ON -DWEIR_WERROR=ON >/dev/null
  cmake --build build-tsan -j"$(nproc)" --target weir_cli
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp}
  weir=$PWD/build-tsan/weir
  passed=0 failed=0
  # No Kafka test here: Debian's librdkafka starts its threads with C11
  # thrd_create, which ThreadSanitizer does not intercept, so any job that
  # opens a Kafka client crashes inside the library (SEGV in free on a
  # librdkafka thread) before weir's code runs;
  # it needs a librdkafka built with TSan.
  tests=(test_sql_golden test_crash_sql test_cli test_stop)
  # Races want threads: the golden cases at parallelism 4 only, every other
  # one (the others ran at 4 under AddressSanitizer, these at 2: test_sql_golden.sh,
  # WEIR_GOLDEN_ONE_EACH; the plain run does all at 1, 2 and 4), and fewer
  # kills than the plain run.
  export WEIR_GOLDEN_PARALLELISM=${WEIR_GOLDEN_PARALLELISM:-4 -}
  export WEIR_GOLDEN_ONE_EACH=${WEIR_GOLDEN_ONE_EACH:-1}
  export WEIR_CRASH_SQL_KILLS=${WEIR_CRASH_SQL_KILLS:-3}
  # WEIR_TSAN_RDKAFKA=DIR: DIR holds librdkafka.so.1 configured with
  # --disable-c11threads (its threads then start with pthread_create) and
  # built with -fsanitize=thread: only the cluster tests that need no other
  # Kafka client (kcat) run, weir and weir-kafka-mock loading that library.
  if [ -n "${WEIR_TSAN_RDKAFKA:-}" ]; then
    mkdir -p build-tsan/rdk-bin
    for b in weir weir-kafka-mock; do
      printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$WEIR_TSAN_RDKAFKA" "$PWD/build-tsan/$b" > "build-tsan/rdk-bin/$b"
      chmod +x "build-tsan/rdk-bin/$b"
    done
    weir=$PWD/build-tsan/rdk-bin/weir
    cmake --build build-tsan -j"$(nproc)" --target weir-kafka-mock
    tests=(test_cluster_members test_cluster_crash test_cluster_rescale test_cluster_savepoint)
    # (ThreadSanitizer slows every process: a slower input keeps the
    # savepoint test's job running until its stop)
    export WEIR_CLUSTER_SP_ROWS=${WEIR_CLUSTER_SP_ROWS:-36000}
    export WEIR_CLUSTER_SP_RATE=${WEIR_CLUSTER_SP_RATE:-2000}
    # (a process that a report stops may be run again by the test: the
    # reports go to files, and any one fails the run)
    rm -rf build-tsan/tsan-reports && mkdir -p build-tsan/tsan-reports
    export TSAN_OPTIONS="$TSAN_OPTIONS:log_path=$PWD/build-tsan/tsan-reports/report"
  fi
  # Each test is a loop of one weir process at a time: they run side by
  # side, the golden cases in three parts (not two: with "4 -" a part of
  # every other case would run nothing), so that no core waits (the
  # cluster tests above start several processes each: one at a time).
  names=() pids=()
  finish() { # $1: index of a started test
    local n=${names[$1]}
    if wait "${pids[$1]}"; then
      passed=$((passed + 1)); echo "tsan: $n passed"
    else
      failed=$((failed + 1)); echo "tsan: $n FAILED"; tail -40 "build-tsan/$n.log"
    fi
  }
  for t in "${tests[@]}"; do
    parts=("")
    [ "$t" = test_sql_golden ] && parts=(0/3 1/3 2/3)
    for part in "${parts[@]}"; do
      n=$t${part:+.${part%/*}}
      WEIR_GOLDEN_SHARD=$part bash "tests/$t.sh" "$weir" "$PWD" > "build-tsan/$n.log" 2>&1 &
      names+=("$n") pids+=($!)
      [ -z "${WEIR_TSAN_RDKAFKA:-}" ] || finish $((${#pids[@]} - 1))
    done
  done
  if [ -z "${WEIR_TSAN_RDKAFKA:-}" ]; then
    for i in "${!pids[@]}"; do finish "$i"; done
  fi
  if [ -n "$(ls build-tsan/tsan-reports 2> /dev/null)" ]; then
    failed=$((failed + 1)); echo "tsan: reports in build-tsan/tsan-reports"
    head -40 build-tsan/tsan-reports/*
  fi
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
  ;;
esac
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
# ctest starts the longest tests first when it knows how long they take,
# which a fresh build does not: it would start them in name order, and a
# long one started last runs alone at the end. tests/ctest-costs.txt holds
# their times from a plain run (ctest's own format; refresh it from
# build/Testing/Temporary/CTestCostData.txt when tests change a lot).
costs=$dir/Testing/Temporary/CTestCostData.txt
if [ ! -s "$costs" ]; then
  mkdir -p "${costs%/*}"
  cp tests/ctest-costs.txt "$costs"
fi
# Most tests wait (on servers, kills, checkpoints, time-boxed fuzzers)
# more than they compute: more at once than there are cores
# (WEIR_TEST_JOBS sets it; CMakeLists.txt counts the heaviest as two). The
# plain run: two more (alone on 2 cores, one more kept them two-thirds
# busy: 1 337 CPU-seconds in 1 011 s); the sanitizers' slower processes:
# one more (they kept both cores busy).
extra=2
[ "$dir" = build ] || extra=1
ctest --test-dir "$dir" --output-on-failure -j"${WEIR_TEST_JOBS:-$(($(nproc) + extra))}" "${ctest_args[@]}"
