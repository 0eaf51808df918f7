#!/usr/bin/env bash
# Parallel runs (--jobs, drivers/parallel-runs.h): the same result files, byte for byte, with
# --jobs=1 (one run after another in the process) and --jobs=2 (forked child processes), for
# crux-experiment (scenarios/smoke.json on the flow fabric, every mode) and crux-trace-run
# (a short window, three schedulers); and a run that fails in its child process (an exception:
# the RDMA watchdog with a 1 ns StallTimeout; a signal: SIGKILL sent to a child) ends the
# driver with exit status 1, one line on stderr naming the run (the first failing run of the
# list, as with --jobs=1), no output directory and no child process left.
# Usage: check-parallel-runs.sh <dir of crux-experiment and crux-trace-run> <module root>
set -u
bin=$(cd "$1" && pwd)
root=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() {
  echo "FAIL $*"
  fails=$((fails + 1))
}

# compare_dirs <a> <b> <label>: every file but timing.csv byte for byte; summary.json of the
# trace runs without its wall-clock "timing" lines
compare_dirs() {
  local a=$1 b=$2 label=$3 n=0
  if [ "$(cd "$a" && find . -type f | sort)" != "$(cd "$b" && find . -type f | sort)" ]; then
    fail "$label: different file lists"
    return
  fi
  while IFS= read -r f; do
    case "$f" in
    */timing.csv) continue ;;
    esac
    n=$((n + 1))
    if ! cmp -s <(grep -v '_seconds"' "$a/$f") <(grep -v '_seconds"' "$b/$f"); then
      fail "$label: $f differs between --jobs=1 and --jobs=2"
    fi
  done < <(cd "$a" && find . -type f | sort)
  if [ "$n" -le 5 ]; then
    fail "$label: only $n files compared"
    return
  fi
  echo "ok   $label: $n files identical"
}

# --- crux-experiment: flow fabric, every mode (alone runs, then the schedulers in parallel)
modes=alone,ecmp,crux,sincronia,varys,taccl,cassini,crux-pa,crux-ps-pa
for j in 1 2; do
  mkdir -p "$work/exp$j"
  (cd "$work/exp$j" && "$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" \
    --fabric=flow --modes=$modes --outputDir=out --jobs=$j --quiet=false --progress=0 \
    >table.txt 2>err.txt) || fail "crux-experiment --jobs=$j: exit $?: $(cat "$work/exp$j/err.txt")"
done
compare_dirs "$work/exp1/out" "$work/exp2/out" "crux-experiment smoke flow"
cmp -s "$work/exp1/table.txt" "$work/exp2/table.txt" || fail "crux-experiment: printed tables differ"
grep -q "^  crux-ps-pa" "$work/exp2/table.txt" || fail "crux-experiment: table lacks crux-ps-pa"

# --- progress lines (nearly every all-reduce) from two children at once: whole lines of the two
# kinds only, and the same files
# several ECMP seeds: the same files one after another and two at a time
for j in 1 2; do
  mkdir -p "$work/seeds$j"
  (cd "$work/seeds$j" && "$bin/crux-experiment" --scenario="$root/scenarios/sec22-gpt-bert.json" \
    --fabric=flow --seeds=3 --outputDir=out --jobs=$j --quiet >/dev/null 2>err.txt) ||
    fail "crux-experiment --seeds=3 --jobs=$j: exit $?: $(cat "$work/seeds$j/err.txt")"
done
compare_dirs "$work/seeds1/out" "$work/seeds2/out" "crux-experiment sec22 flow --seeds=3"

mkdir -p "$work/exp-progress"
(cd "$work/exp-progress" && "$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" \
  --fabric=flow --modes=$modes --outputDir=out --jobs=2 --quiet --progress=1e-9 \
  >/dev/null 2>err.txt) || fail "crux-experiment --progress: exit $?"
compare_dirs "$work/exp1/out" "$work/exp-progress/out" "crux-experiment with progress lines"
run_re='^crux-experiment: [a-z0-9:@()/-]+: sim [0-9.]+ s, iterations [0-9]+/[0-9]+, wall [0-9]+ s(, about [0-9]+ s left)?$'
done_re='^crux-experiment: runs done [0-9]+/[0-9]+( of phase 1/2)?(, running:( [a-z0-9:@()/-]+)+)?, wall [0-9]+ s(, about [0-9]+ s left( in phase 1/2)?)?$'
lines=$(wc -l <"$work/exp-progress/err.txt")
bad=$(grep -cvE "$run_re|$done_re" "$work/exp-progress/err.txt")
if [ "$lines" -lt 20 ] || [ "$bad" -ne 0 ]; then
  fail "progress lines: $lines lines, $bad not of the two forms: $(grep -vE "$run_re|$done_re" "$work/exp-progress/err.txt" | head -3)"
elif ! grep -qE '^crux-experiment: runs done ([0-9]+)/\1,' "$work/exp-progress/err.txt"; then
  fail "progress lines: no 'runs done N/N'"
elif ! grep -qE '^crux-experiment: runs done [0-9]+/[0-9]+ of phase 1/2' "$work/exp-progress/err.txt"; then
  fail "progress lines: the first phase's lines do not say so (its total grows in the second)"
else
  echo "ok   progress lines: $lines whole lines of the two forms"
fi

# --- progress inside one long message (found by a breaker helper: lines came only when a
# collective or 65,536 DAG nodes completed, so a run inside one message printed nothing for
# minutes): a 1-byte MTU makes the first all-reduce take minutes; the progress poll of adaptive
# period (drivers/scenario-progress.cc, ProgressPoll) prints a line every interval with the
# simulated time moving on. And the poll changes nothing: packet runs with and without
# progress lines have the same files, timing.csv's event counts included.
mkdir -p "$work/long-message"
(cd "$work/long-message" && timeout 8 "$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" \
  --modes=ecmp --outputDir=out --jobs=1 --quiet --progress=1 --ns3::RdmaNic::Mtu=1 \
  >/dev/null 2>err.txt)
sims=$(grep -oE '^crux-experiment: ecmp: sim [0-9.]+ s, iterations 0/' "$work/long-message/err.txt" |
  grep -oE '[0-9]+\.[0-9]+' | tr '\n' ' ')
if [ "$(echo "$sims" | wc -w)" -lt 3 ] ||
  ! echo "$sims" | tr ' ' '\n' | grep . | sort -c -g 2>/dev/null ||
  [ "$(echo "$sims" | tr ' ' '\n' | grep . | sort -u | wc -l)" -ne "$(echo "$sims" | wc -w)" ]; then
  fail "progress inside one message: simulated times '$sims' (want >= 3, increasing) in 8 s: $(head -3 "$work/long-message/err.txt")"
else
  echo "ok   progress inside one message: lines at sim $sims"
fi
for p in 0 1e-9; do
  mkdir -p "$work/packet-progress-$p"
  (cd "$work/packet-progress-$p" && "$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" \
    --modes=alone --outputDir=out --jobs=1 --quiet --progress=$p >/dev/null 2>err.txt) ||
    fail "crux-experiment packet --progress=$p: exit $?: $(head -3 "$work/packet-progress-$p/err.txt")"
done
compare_dirs "$work/packet-progress-0/out" "$work/packet-progress-1e-9/out" "packet runs with progress lines"
if [ "$(cut -d, -f1,3,4 "$work/packet-progress-0/out/timing.csv")" != \
  "$(cut -d, -f1,3,4 "$work/packet-progress-1e-9/out/timing.csv")" ]; then
  fail "packet runs with progress lines: timing.csv's simulated time or events differ"
else
  echo "ok   packet runs with progress lines: timing.csv's events the same"
fi

# --- crux-trace-run: a short window, three schedulers
for j in 1 2; do
  "$bin/crux-trace-run" --topology=clos --placement=random --schedulers=ecmp,crux,sincronia \
    --days=1 --windowEnd=3h --outputDir="$work/trace$j" --jobs=$j --quiet \
    >/dev/null 2>"$work/trace$j.err" || fail "crux-trace-run --jobs=$j: exit $?: $(cat "$work/trace$j.err")"
done
compare_dirs "$work/trace1" "$work/trace2" "crux-trace-run clos 3h"

# expect_one_line <label> <err file> <rc> <substring> <output dir>
expect_one_line() {
  local label=$1 err=$2 rc=$3 want=$4 out=$5
  if [ "$rc" -ne 1 ]; then
    fail "$label: exit status $rc, expected 1"
  elif [ "$(wc -l <"$err")" -ne 1 ]; then
    fail "$label: $(wc -l <"$err") lines on stderr, expected 1: $(cat "$err")"
  elif ! grep -qE -- "$want" "$err"; then
    fail "$label: stderr lacks '$want': $(cat "$err")"
  elif [ -e "$out" ]; then
    fail "$label: the output directory was created"
  else
    echo "ok   $label: $(cat "$err")"
  fi
}

# --- a child's exception: every packet-level run stops at its first unacknowledged packet
"$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" --modes=alone,ecmp \
  --outputDir="$work/fail-exc" --jobs=2 --quiet --ns3::RdmaNic::StallTimeout=1ns \
  >/dev/null 2>"$work/exc.err"
expect_one_line "child exception" "$work/exc.err" $? \
  "^crux-experiment: error: run alone:big: .*made no progress" "$work/fail-exc"
# the failure reported is the first failing run's in the list, as with --jobs=1 (the same
# error, with the run's name), whatever child ends first
"$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" --modes=alone,ecmp \
  --outputDir="$work/fail-exc1" --jobs=1 --quiet --ns3::RdmaNic::StallTimeout=1ns \
  >/dev/null 2>"$work/exc1.err"
if [ "$(sed 's/^crux-experiment: error: run alone:big: /crux-experiment: error: /' "$work/exc.err")" \
  != "$(cat "$work/exc1.err")" ]; then
  fail "child exception: --jobs=2 reports '$(cat "$work/exc.err")', --jobs=1 '$(cat "$work/exc1.err")'"
else
  echo "ok   child exception: the same failure as with --jobs=1"
fi

# --- a child killed by a signal
"$bin/crux-experiment" --scenario="$root/scenarios/smoke.json" --modes=alone,ecmp \
  --outputDir="$work/fail-kill" --jobs=2 --quiet >/dev/null 2>"$work/kill.err" &
parent=$!
child=""
for _ in $(seq 1 400); do
  child=$(pgrep -P "$parent" | head -1)
  [ -n "$child" ] && break
  sleep 0.05
done
if [ -z "$child" ]; then
  fail "child killed: no child process of crux-experiment seen"
  wait "$parent"
else
  kill -KILL "$child"
  wait "$parent"
  expect_one_line "child killed" "$work/kill.err" $? \
    "^crux-experiment: error: run alone:(big|small): child process killed by signal 9" \
    "$work/fail-kill"
  [ -z "$(pgrep -P "$parent")" ] || fail "child killed: child processes left running"
fi

if [ "$fails" -ne 0 ]; then
  echo "check-parallel-runs: $fails failure(s)"
  exit 1
fi
echo "check-parallel-runs: all passed"
