#!/usr/bin/env bash
# waf workflow: builds and tests crux as contrib/crux inside an ns-3.35 source tree (the last
# waf-based ns-3 release), through the module's wscript and examples/wscript, the way users of
# ns-3 <= 3.35 will build it (scripts/intree.sh does the same for an ns-3.37 CMake tree).
#
# Phases (each one timed; any failure stops the script with a message naming the phase):
#   unpack     the ns-3.35 release tarball (CRUX_NS335_TARBALL) into the cache, outside the
#              clone. Skipped once the tree is in the cache.
#   configure  contrib/crux -> this clone (symlink); `./waf configure` with only crux and the
#              modules it depends on (waf's --enable-modules pulls in core, network, internet and
#              their dependencies), examples and tests, release profile, --disable-werror (ns-3.35's
#              own core fails gcc 12's -Werror=use-after-free). Skipped while the cached
#              configuration has the same options.
#   build      `./waf build -j $CRUX_NS3_JOBS` under nice (incremental: the build tree stays in
#              the cache).
#   run        the examples of test/examples-to-run.py via `./test.py --constrain=example` (each
#              must PASS) and the smoke scenario via `./waf --run` (prints the table).
#   tests      `./test.py -s <suite>` for every suite in CRUX_TEST_SUITES; each must PASS.
#
# Not built in this mode: the GoogleTest programs (crux-gtest), the benchmarks (bench/) and the
# Python bindings (cppyy needs ns-3 >= 3.37); they belong to the CMake builds.
#
# Usage: bash scripts/waf335.sh     (needs the packages of scripts/setup.sh)
# Environment:
#   CRUX_NS335_TARBALL      ns-3.35 source tarball (default
#                           /work/shared/ns-3.35/ns-3.35-source.tar.gz; `git archive
#                           --prefix=ns-3.35/` of nsnam/ns-3-dev-git tag ns-3.35 works too)
#   CRUX_NS3_CACHE          cache root (default $HOME/.cache/crux-ns3); the ns-3 tree and its
#                           build live in $CRUX_NS3_CACHE/ns-3.35, outside the clone
#   CRUX_NS3_JOBS           parallel build jobs (default: nproc)
#   CRUX_NS3_FULLNESS       test.py fullness: QUICK (default), EXTENSIVE or TAKES_FOREVER
#   CRUX_NS3_CONFIGURE_ARGS extra arguments for ./waf configure (word-split)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${CRUX_NS3_CACHE:-$HOME/.cache/crux-ns3}
ns3_version=3.35
ns3dir=$cache/ns-$ns3_version
tarball=${CRUX_NS335_TARBALL:-/work/shared/ns-3.35/ns-3.35-source.tar.gz}
jobs=${CRUX_NS3_JOBS:-$(nproc)}
fullness=${CRUX_NS3_FULLNESS:-QUICK}

phase=setup
phase_start=$EPOCHREALTIME
script_start=$EPOCHREALTIME
timings=()

print_timings() {
  [ ${#timings[@]} -gt 0 ] || return 0
  echo "waf335: phase timings (seconds):"
  printf '  %s\n' "${timings[@]}"
  awk -v a="$script_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "  total      %8.1f\n", b - a }'
}

on_exit() {
  local rc=$?
  print_timings
  if [ $rc -ne 0 ]; then
    echo "waf335: FAILED in phase '$phase' (exit status $rc)" >&2
  fi
}
trap on_exit EXIT

die() {
  echo "waf335: ERROR in phase '$phase': $*" >&2
  exit 1
}

begin() {
  phase=$1
  phase_start=$EPOCHREALTIME
  echo "=== waf335: $phase"
}

end() {
  local dt
  dt=$(awk -v a="$phase_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  timings+=("$(printf '%-10s %8s  %s' "$phase" "$dt" "${1:-}")")
  echo "=== waf335: $phase done in ${dt}s ${1:-}"
}

waf() {
  (cd "$ns3dir" && nice -n 10 python3 ./waf "$@")
}

testpy() {
  (cd "$ns3dir" && nice -n 10 python3 ./test.py --nocolor --nowaf "$@")
}

# Prints the CMake list variable $1 of cmake/crux-sources.cmake, space-separated (CMake itself
# evaluates the file, so comments and ${...} references are handled as the build sees them).
crux_list() {
  local script
  script=$(mktemp "${TMPDIR:-/tmp}/crux-list.XXXXXX.cmake")
  cat >"$script" <<'EOF'
include(${CRUX_SOURCES_FILE})
string(REPLACE ";" " " _crux_out "${${CRUX_LIST}}")
execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${_crux_out}")
EOF
  cmake -DCRUX_SOURCES_FILE="$here/cmake/crux-sources.cmake" -DCRUX_LIST="$1" -P "$script" ||
    {
      rm -f "$script"
      die "cannot read $1 from cmake/crux-sources.cmake"
    }
  rm -f "$script"
}

# ------------------------------------------------------------------------------------ setup
for tool in cmake python3 g++ tar awk protoc pkg-config; do
  command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/setup.sh first)"
done
suite_list=$(crux_list CRUX_TEST_SUITES)
read -r -a suites <<<"$suite_list"
echo "waf335: module $here"
echo "waf335: ns-3 tree $ns3dir (release profile, $jobs jobs)"
echo "waf335: suites: ${suites[*]:-(none)}"
mkdir -p "$cache"

# ----------------------------------------------------------------------------------- unpack
begin unpack
if [ -x "$ns3dir/waf" ] && [ -f "$ns3dir/wscript" ] &&
  [ "$(cat "$ns3dir/VERSION" 2>/dev/null)" = "$ns3_version" ]; then
  end "(cached)"
else
  [ -f "$tarball" ] || die "$tarball not found (set CRUX_NS335_TARBALL to the ns-3.35 source tarball)"
  unpack=$(mktemp -d "$cache/unpack.XXXXXX")
  tar -xzf "$tarball" -C "$unpack" || die "cannot unpack $tarball"
  tree=$unpack/ns-$ns3_version
  [ -x "$tree/waf" ] && [ -f "$tree/VERSION" ] || die "$tarball does not hold ns-$ns3_version/waf"
  [ "$(cat "$tree/VERSION")" = "$ns3_version" ] ||
    die "$tarball holds ns-3 $(cat "$tree/VERSION"), expected $ns3_version"
  rm -rf "$ns3dir" "$cache/configure-$ns3_version.stamp"
  mv "$tree" "$ns3dir"
  rm -rf "$unpack"
  end "(from $(basename "$tarball"))"
fi

# -------------------------------------------------------------------------------- configure
begin configure
link=$ns3dir/contrib/crux
if [ -L "$link" ]; then
  if [ "$(readlink "$link")" != "$here" ]; then
    ln -sfn "$here" "$link"
    # Another clone: its files may be older than the objects built from the previous one, so
    # make timestamps irrelevant by dropping crux's objects (ns-3's own stay).
    if [ -d "$ns3dir/build/contrib/crux" ]; then
      echo "waf335: contrib/crux now points to $here; recompiling crux"
      rm -rf "$ns3dir/build/contrib/crux"
    fi
  fi
elif [ -e "$link" ]; then
  die "$link exists and is not a symlink to a crux clone; move it away"
else
  ln -s "$here" "$link"
fi
configure_args=(configure -d release --enable-examples --enable-tests --enable-modules=crux
  --disable-werror --disable-python)
# shellcheck disable=SC2206 # word splitting of the extra arguments is intended
[ -z "${CRUX_NS3_CONFIGURE_ARGS:-}" ] || configure_args+=(${CRUX_NS3_CONFIGURE_ARGS})
stamp=$cache/configure-$ns3_version.stamp
lock=$ns3dir/.lock-waf_linux_build
if [ -f "$lock" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${configure_args[*]}" ] &&
  [ "$lock" -nt "$here/wscript" ]; then
  end "(cached: ${configure_args[*]})"
else
  rm -f "$stamp"
  cfglog=$(mktemp "${TMPDIR:-/tmp}/crux-waf335-configure.XXXXXX")
  waf "${configure_args[@]}" >"$cfglog" 2>&1 || { cat "$cfglog"; die "./waf ${configure_args[*]} failed"; }
  cat "$cfglog"
  # crux's wscript reports a missing prerequisite as an optional feature "not enabled (reason)"
  # and drops the module; require it among the enabled contributed modules.
  grep -q "^NS3_ENABLED_CONTRIBUTED_MODULES = \[.*'ns3-crux'" "$ns3dir/build/c4che/_cache.py" ||
    {
      grep -i crux "$cfglog" || true
      die "crux is not among the modules ./waf configure will build (see above)"
    }
  rm -f "$cfglog"
  printf '%s\n' "${configure_args[*]}" >"$stamp"
  end
fi

# ------------------------------------------------------------------------------------ build
begin build
waf build -j "$jobs" || die "./waf build failed"
end

# -------------------------------------------------------------------------------------- run
begin run
[ -f "$here/test/examples-to-run.py" ] || die "test/examples-to-run.py is missing"
want=$(grep -c '^    ("' "$here/test/examples-to-run.py")
exlog=$(mktemp "${TMPDIR:-/tmp}/crux-waf335-examples.XXXXXX")
testpy --constrain=example >"$exlog" 2>&1 || { cat "$exlog"; die "./test.py --constrain=example failed"; }
cat "$exlog"
passed=$(grep -c "PASS: Example contrib/crux/" "$exlog" || true)
[ "$passed" -eq "$want" ] || die "$passed of the $want examples of test/examples-to-run.py passed"
rm -f "$exlog"
out=$(mktemp -d "${TMPDIR:-/tmp}/crux-waf335-run.XXXXXX")
waf --run "crux-experiment --scenario=contrib/crux/scenarios/smoke.json --outputDir=$out" ||
  die "./waf --run crux-experiment --scenario=contrib/crux/scenarios/smoke.json failed"
[ -n "$(ls -A "$out")" ] || die "crux-experiment wrote nothing to --outputDir=$out"
echo "waf335: crux-experiment wrote to $out:"
ls -l "$out"
end "($passed examples + smoke scenario)"

# ------------------------------------------------------------------------------------ tests
begin tests
[ ${#suites[@]} -gt 0 ] || die "CRUX_TEST_SUITES in cmake/crux-sources.cmake is empty"
results=$(mktemp -d "${TMPDIR:-/tmp}/crux-waf335-tests.XXXXXX")
failed=()
for s in "${suites[@]}"; do
  # test.py exits 0 when passed + skipped == total, so also when the suite is unknown (0 of 0)
  # or skipped: require its own PASS line as well.
  rc=0
  suite_start=$EPOCHREALTIME
  testpy --fullness="$fullness" --suite="$s" --text="$results/$s" >"$results/$s.log" 2>&1 || rc=$?
  cat "$results/$s.log"
  echo "waf335: suite $s took $(awk -v a="$suite_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s"
  if [ $rc -ne 0 ] ||
    ! sed -E 's/^\[[0-9]+\/[0-9]+\] //' "$results/$s.log" | grep -qxF "PASS: TestSuite $s"; then
    failed+=("$s")
    [ ! -f "$results/$s.txt" ] || cat "$results/$s.txt"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "$((${#suites[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
  die "test.py suites failed: ${failed[*]} (logs in $results)"
fi
rm -rf "$results"
echo "${#suites[@]} passed, 0 failed"
end "(${#suites[@]} suites, fullness $fullness)"
phase="done"
echo "waf335: all phases passed"
