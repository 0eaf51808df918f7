#!/usr/bin/env bash
# In-tree workflow: builds and tests crux as contrib/crux inside an ns-3.37 source tree, the way
# users who build ns-3 from source will use it (scripts/setup.sh covers the standalone build
# against Debian's packaged ns-3).
#
# Phases (each one timed; any failure stops the script with a message naming the phase):
#   fetch      ns-3.37 source from Debian's source package `ns3` (bookworm). Only the pristine
#              upstream tree (ns-allinone-3.37/ns-3.37 in the .orig tarball) is unpacked, without
#              Debian's patches. Adds a bookworm deb-src entry and runs apt-get update only when
#              `apt-get source` cannot find the package. Skipped once the tree is in the cache.
#   configure  contrib/crux -> this clone (symlink); `./ns3 configure` with only crux and the
#              modules it depends on (core, network, internet and their dependencies), examples
#              and tests of crux only. Skipped while the cached configuration has the same options
#              (the build step re-runs CMake by itself when a CMake file of crux changes).
#   build      what `./ns3 build` runs, with -j $CRUX_NS3_JOBS (incremental: the build tree stays
#              in the cache).
#   run        the examples of test/examples-to-run.py via `./test.py --constrain=example` (each
#              must PASS) and the smoke scenario via `./ns3 run`.
#   mpi        one packet-level simulation split over MPI ranks (ns-3's distributed simulator):
#              crux-experiment --mpi on scenarios/mpi-two-pods.json and on the first 8 ms of
#              scenarios/mpi-clos-1024.json (the speed figure's) under `mpirun -np 1` and
#              `mpirun -np 2`, and without MPI; every result file (timing.csv aside) must be
#              byte-identical (cmp; the per-link throughput sampled: link_throughput.csv between
#              1 and 2 ranks, its last sample ends at the distributed stop check),
#              frames must have crossed between the two ranks; prints the wall-time ratio. Then
#              bad input: more ranks than ToRs, a job spanning ranks, mpirun without --mpi: exit
#              status 1, one error line, nothing written.
#   tests      `./test.py -s <suite>` for every suite in CRUX_TEST_SUITES; each must PASS.
#   python     the pytest tests of the cppyy bindings (test/python) with the bindings loading
#              this tree's libraries (CRUX_NS3_DIR), compared against the tree's crux-experiment
#              binary; uses the venv scripts/setup.sh made (build/venv of this clone).
#
# Usage: bash scripts/intree.sh     (needs the packages of scripts/setup.sh; root or sudo for the
#                                    first fetch only)
# Environment:
#   CRUX_NS3_CACHE          cache root (default $HOME/.cache/crux-ns3); the ns-3 tree and its
#                           build live in $CRUX_NS3_CACHE/ns-3.37, outside the clone
#   CRUX_NS3_PROFILE        ns-3 build profile (default "default": -O2 -g, NS_ASSERT and NS_LOG on,
#                           warnings not fatal; "debug" makes every warning an error)
#   CRUX_NS3_JOBS           parallel build jobs (default: nproc)
#   CRUX_NS3_FULLNESS       test.py fullness: QUICK (default), EXTENSIVE or TAKES_FOREVER
#   CRUX_NS3_CONFIGURE_ARGS extra arguments for ./ns3 configure (word-split)
#   CRUX_MPIRUN             the MPI launcher (default mpirun, Debian's OpenMPI; as root the
#                           OMPI_ALLOW_RUN_AS_ROOT variables are set for it)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${CRUX_NS3_CACHE:-$HOME/.cache/crux-ns3}
ns3dir=$cache/ns-3.37
profile=${CRUX_NS3_PROFILE:-default}
jobs=${CRUX_NS3_JOBS:-$(nproc)}
fullness=${CRUX_NS3_FULLNESS:-QUICK}
ns3_version=3.37
debian_suite=bookworm

tag=intree
# shellcheck source=scripts/ns3-tree-lib.sh
. "$here/scripts/ns3-tree-lib.sh"

crux_testpy() {
  (cd "$ns3dir" && ./test.py --nocolor --no-build "$@")
}

# ./ns3 refuses to run when $USER is root (it is a guard against `sudo ./ns3`); building as root
# in a container or CI is harmless, so present another name to that check only.
ns3() {
  local user=${USER:-}
  [ "$user" != root ] || user=root-crux-intree
  (cd "$ns3dir" && env USER="$user" ./ns3 "$@")
}

# ------------------------------------------------------------------------------------ setup
for tool in cmake python3 g++ ninja tar awk cmp mpirun; do
  command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/setup.sh first)"
done
# (assignments first, so that set -e sees a failure inside the command substitution)
suite_list=$(crux_list CRUX_TEST_SUITES)
example_list=$(crux_list CRUX_EXAMPLES)
read -r -a suites <<<"$suite_list"
read -r -a examples <<<"$example_list"
echo "intree: module $here"
echo "intree: ns-3 tree $ns3dir (profile $profile, $jobs jobs)"
echo "intree: suites: ${suites[*]:-(none)}; examples: ${examples[*]:-(none)}"
mkdir -p "$cache"

# ------------------------------------------------------------------------------------ fetch
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

source_known() {
  apt-get source --print-uris "ns3/$debian_suite" >/dev/null 2>&1
}

ensure_deb_src() {
  source_known && return 0
  local f has_src=false
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    if grep -qE "^[[:space:]]*(deb-src[[:space:]].*[[:space:]]${debian_suite}[[:space:]]|Suites:.*\\b${debian_suite}\\b)" "$f" &&
      grep -qE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' "$f"; then
      has_src=true
    fi
  done
  if ! $has_src; then
    local list=/etc/apt/sources.list.d/crux-deb-src.sources
    echo "intree: adding Debian $debian_suite source entries in $list"
    printf '%s\n' \
      "# Added by crux scripts/intree.sh: Debian source packages (apt-get source ns3)." \
      "Types: deb-src" \
      "URIs: http://deb.debian.org/debian" \
      "Suites: $debian_suite" \
      "Components: main" \
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
      $SUDO tee "$list" >/dev/null || die "cannot write $list (needs root or sudo)"
  fi
  $SUDO apt-get update -q || die "apt-get update failed"
  source_known || die "apt-get cannot find the source package ns3/$debian_suite even after adding deb-src"
}

begin fetch
if [ -x "$ns3dir/ns3" ] && [ -f "$ns3dir/CMakeLists.txt" ] &&
  [ "$(cat "$ns3dir/VERSION" 2>/dev/null)" = "$ns3_version" ]; then
  end "(cached)"
else
  command -v apt-get >/dev/null || die "apt-get not found: the ns-3 source comes from Debian's ns3 source package"
  dl=$cache/debian-src
  mkdir -p "$dl"
  find_tarball() {
    tarball=$(find "$dl" -maxdepth 1 -name "ns3_${ns3_version}*.orig.tar.*" | sort | head -n 1)
  }
  find_tarball
  if [ -z "$tarball" ]; then
    ensure_deb_src
    (cd "$dl" && apt-get source --download-only "ns3/$debian_suite") ||
      die "apt-get source --download-only ns3/$debian_suite failed"
    find_tarball
    [ -n "$tarball" ] || die "no ns3_$ns3_version*.orig.tar.* in $dl after apt-get source (ls: $(ls "$dl"))"
  fi
  # the .orig tarball is the ns-allinone layout: the tree is ns-allinone-3.37/ns-3.37
  unpack_ns3_tree "$tarball" ns3
fi

# -------------------------------------------------------------------------------- configure
begin configure
link_crux "$ns3dir/cmake-cache/contrib/crux" objects
# MPI on (Debian's OpenMPI, scripts/setup.sh): ns-3's mpi module is built beside crux, and crux
# adds its distributed packet simulation (doc/crux.rst, "Distributed packet simulation (MPI)").
configure_args=(configure -G Ninja -d "$profile" --enable-examples --enable-tests --enable-mpi
  "--enable-modules=crux;mpi" --filter-module-examples-and-tests=crux)
# shellcheck disable=SC2206 # word splitting of the extra arguments is intended
[ -z "${CRUX_NS3_CONFIGURE_ARGS:-}" ] || configure_args+=(${CRUX_NS3_CONFIGURE_ARGS})
stamp=$cache/configure.stamp
lock=$ns3dir/.lock-ns3_linux_build
# ns-3's configure writes one stub per module header into build/include/ns3 (#include of the
# source path) and never rewrites an existing one: a header that moved within crux leaves a stub
# pointing at its old place. Remove every stub whose target is gone and configure again.
stale=0
for h in "$ns3dir"/build/include/ns3/*.h; do
  [ -f "$h" ] || continue
  target=$(sed -n '1s/^#include "\(\/.*\)"$/\1/p' "$h")
  if [ -n "$target" ] && [ ! -e "$target" ]; then
    rm -f "$h"
    stale=$((stale + 1))
  fi
done
[ "$stale" -eq 0 ] || { echo "intree: $stale stub header(s) of moved headers removed"; rm -f "$stamp"; }
if [ -f "$ns3dir/cmake-cache/CMakeCache.txt" ] && [ -f "$lock" ] && [ -f "$stamp" ] &&
  [ "$(cat "$stamp")" = "${configure_args[*]}" ]; then
  end "(cached: ${configure_args[*]})"
else
  rm -f "$stamp"
  ns3 "${configure_args[@]}" || die "./ns3 ${configure_args[*]} failed"
  grep -q "NS3_ENABLED_CONTRIBUTED_MODULES = \[.*'ns3-crux'" "$lock" ||
    die "crux is not among the enabled contrib modules in $lock"
  printf '%s\n' "${configure_args[*]}" >"$stamp"
  end "($(grep '^NS3_ENABLED_MODULES' "$lock"))"
fi

# ------------------------------------------------------------------------------------ build
begin build
# This is the command `./ns3 build` runs ("cd cmake-cache; cmake --build . -j N"), called directly
# because ./ns3 caps -j at (number of CPUs - 1), i.e. one job on a 2-core machine.
cmake --build "$ns3dir/cmake-cache" -j "$jobs" || die "cmake --build (= ./ns3 build) failed"
end

# -------------------------------------------------------------------------------------- run
begin run
# ns-3's own way: ./test.py runs the examples listed in test/examples-to-run.py (each must PASS),
# then the scenario program once more by ./ns3 run, checking its output directory.
run_examples
if [[ " ${examples[*]} " == *" crux-experiment "* ]]; then
  [ -f "$here/scenarios/smoke.json" ] || die "crux-experiment is listed but scenarios/smoke.json is missing"
  out=$(mktemp -d "${TMPDIR:-/tmp}/crux-intree-run.XXXXXX")
  ns3 run --no-build \
    "crux-experiment --scenario=contrib/crux/scenarios/smoke.json --outputDir=$out" ||
    die "crux-experiment --scenario=contrib/crux/scenarios/smoke.json failed"
  [ -n "$(ls -A "$out")" ] || die "crux-experiment wrote nothing to --outputDir=$out"
  echo "intree: crux-experiment wrote to $out:"
  ls -l "$out"
fi
end "($passed examples)"

# -------------------------------------------------------------------------------------- mpi
begin mpi
grep -q "NS3_ENABLED_MODULES = \[.*'ns3-mpi'" "$lock" ||
  die "ns-3's mpi module is not enabled in $lock (configure with --enable-mpi, OpenMPI installed)"
experiment=""
for f in "$ns3dir"/build/contrib/crux/examples/ns${ns3_version}-crux-experiment*; do
  [ -x "$f" ] && experiment=$f && break
done
[ -n "$experiment" ] || die "no crux-experiment binary under $ns3dir/build/contrib/crux/examples"
# shellcheck disable=SC2206 # CRUX_MPIRUN may carry options (word-split on purpose)
mpirun_cmd=(${CRUX_MPIRUN:-mpirun} --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpi_scenario=$here/scenarios/mpi-two-pods.json
mpi_out=$(mktemp -d "${TMPDIR:-/tmp}/crux-intree-mpi.XXXXXX")
# mpi_identity <name> <scenario> [options...]: the scenario under mpirun -np 1 and -np 2 and
# without MPI; every result file but timing.csv byte-identical; frames crossed between the
# ranks; prints the wall times (sets wall=(1 rank, 2 ranks) and plain_wall)
mpi_identity() {
  local name=$1 scenario=$2 np t0 f
  shift 2
  local dir=$mpi_out/$name
  mkdir -p "$dir"
  wall=()
  for np in 1 2; do
    # the same --outputDir for both runs (summary.json records it), moved aside after each run
    t0=$EPOCHREALTIME
    "${mpirun_cmd[@]}" -np $np "$experiment" --mpi --scenario="$scenario" \
      --outputDir="$dir/run" --quiet --progress=0 "$@" 2>"$dir/np$np.stderr" ||
      {
        cat "$dir/np$np.stderr"
        die "mpirun -np $np crux-experiment --mpi --scenario=$scenario failed"
      }
    wall+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')")
    cat "$dir/np$np.stderr"
    mv "$dir/run" "$dir/np$np"
  done
  # and the same scenario without MPI (one process, the default simulator)
  t0=$EPOCHREALTIME
  "$experiment" --scenario="$scenario" --outputDir="$dir/run" --quiet --progress=0 \
    --jobs=1 "$@" || die "crux-experiment --scenario=$scenario (without MPI) failed"
  plain_wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  mv "$dir/run" "$dir/plain"
  # the files of the runs, byte for byte (timing.csv holds wall-clock times and event counts)
  files=$(cd "$dir/np1" && ls)
  [ -n "$files" ] || die "mpirun -np 1 wrote nothing to $dir/np1"
  [ "$files" = "$(cd "$dir/np2" && ls)" ] ||
    die "1 and 2 ranks wrote different file sets: $(ls "$dir/np1") vs $(ls "$dir/np2")"
  local differ=()
  for f in $files; do
    [ "$f" = timing.csv ] && continue
    cmp -s "$dir/np1/$f" "$dir/np2/$f" || differ+=("$f (1 vs 2 ranks)")
    # a distributed run stops at the first stop check after its last measured job (ns-3 events
    # of every rank), a local one at that job's end: the throughput's last sample ends later
    [ "$f" = link_throughput.csv ] && continue
    cmp -s "$dir/np1/$f" "$dir/plain/$f" || differ+=("$f (1 rank vs without MPI)")
  done
  [ ${#differ[@]} -eq 0 ] ||
    die "$name: result files differ: ${differ[*]} (kept in $dir/np1, np2 and plain)"
  # both ranks simulated traffic that crossed to the other one
  grep -Eq "MPI: 2 ranks; frames sent to another rank: rank 0 [1-9][0-9]* rank 1 [1-9][0-9]*" \
    "$dir/np2.stderr" || die "$name: no frames crossed between the 2 ranks (see $dir/np2.stderr)"
  echo "intree: mpi: $name: $(echo "$files" | grep -vc '^timing.csv$') result files identical with 1 rank, 2 ranks and without MPI"
  ratio=$(awk -v a="${wall[0]}" -v b="${wall[1]}" 'BEGIN { printf "%.2f", a / b }')
  echo "intree: mpi: $name: wall time 1 rank ${wall[0]} s, 2 ranks ${wall[1]} s (speed-up $ratio), without MPI $plain_wall s"
}
# with the per-link throughput sampled: link_throughput.csv, merged over the ranks, compared too
mpi_identity mpi-two-pods "$mpi_scenario" --ns3::LinkThroughputSampler::Interval=1ms
two_pods="1 rank ${wall[0]} s, 2 ranks ${wall[1]} s, speed-up $ratio"
# the scenario of the speed figure (bench/run-mpi-bench.sh, doc/performance.rst), its first
# 8 ms (the first iteration of every job; the whole run takes about a minute without MPI)
mpi_identity mpi-clos-1024 "$here/scenarios/mpi-clos-1024.json" --modes=ecmp --stopTime=0.008
# bad input: exit status 1, exactly one error line, no output directory
mpi_bad() { # <what> <np> <text the error must contain> <options...>
  local what=$1 np=$2 want=$3 err rc=0
  shift 3
  err=$("${mpirun_cmd[@]}" -np "$np" "$experiment" --scenario="$mpi_scenario" \
    --outputDir="$mpi_out/bad" --quiet --progress=0 "$@" 2>&1 >/dev/null) || rc=$?
  [ $rc -ne 0 ] || die "$what: exit status 0, expected an error"
  [ "$(grep -c '^crux-experiment: error: ' <<<"$err")" -eq 1 ] ||
    die "$what: expected one 'crux-experiment: error:' line, got: $err"
  grep -qF -- "$want" <<<"$err" || die "$what: the error does not name '$want': $err"
  [ ! -e "$mpi_out/bad" ] || die "$what: wrote $mpi_out/bad"
  echo "intree: mpi: $what -> $(grep '^crux-experiment: error: ' <<<"$err")"
}
mpi_bad "5 ranks for 4 ToRs" 5 "supports 1 to 4 ranks" --mpi
mpi_bad "4 ranks (jobs span ranks)" 4 "jobs[0] ('gpt')" --mpi
mpi_bad "2 processes without --mpi" 2 "--mpi: started by mpirun" --mpi=false
rm -rf "$mpi_out"
end "(mpi-two-pods: $two_pods)"

# ------------------------------------------------------------------------------------ tests
begin tests
run_suites "${suites[@]}"
end "(${#suites[@]} suites, fullness $fullness)"

# ----------------------------------------------------------------------------------- python
begin python
venv_python=$here/build/venv/bin/python
[ -x "$venv_python" ] || die "$venv_python not found: run scripts/setup.sh first (it makes the venv with cppyy)"
"$venv_python" -c 'import cppyy, pytest' || die "cppyy or pytest missing in $venv_python: rerun scripts/setup.sh"
program=""
for f in "$ns3dir"/build/contrib/crux/examples/ns${ns3_version}-crux-experiment*; do
  [ -x "$f" ] && program=$f && break
done
[ -n "$program" ] || die "no crux-experiment binary under $ns3dir/build/contrib/crux/examples"
(cd "$here" && env -u CRUX_BUILD_DIR CRUX_NS3_DIR="$ns3dir" CRUX_EXPERIMENT_PROGRAM="$program" \
  "$venv_python" -m pytest -q -p no:cacheprovider test/python) ||
  die "pytest test/python against the in-tree build failed"
end "(bindings loaded from $ns3dir)"
phase="done"
echo "intree: all phases passed"
