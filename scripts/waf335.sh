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

tag=waf335
# shellcheck source=scripts/ns3-tree-lib.sh
. "$here/scripts/ns3-tree-lib.sh"

waf() {
  (cd "$ns3dir" && nice -n 10 python3 ./waf "$@")
}

crux_testpy() {
  (cd "$ns3dir" && nice -n 10 python3 ./test.py --nocolor --nowaf "$@")
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
  rm -f "$cache/configure-$ns3_version.stamp"
  unpack_ns3_tree "$tarball" waf
fi

# -------------------------------------------------------------------------------- configure
begin configure
link_crux "$ns3dir/build/contrib/crux" rm
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
run_examples
out=$(mktemp -d "${TMPDIR:-/tmp}/crux-waf335-run.XXXXXX")
waf --run "crux-experiment --scenario=contrib/crux/scenarios/smoke.json --outputDir=$out" ||
  die "./waf --run crux-experiment --scenario=contrib/crux/scenarios/smoke.json failed"
[ -n "$(ls -A "$out")" ] || die "crux-experiment wrote nothing to --outputDir=$out"
echo "waf335: crux-experiment wrote to $out:"
ls -l "$out"
end "($passed examples + smoke scenario)"

# ------------------------------------------------------------------------------------ tests
begin tests
run_suites "${suites[@]}"
end "(${#suites[@]} suites, fullness $fullness)"
phase="done"
echo "waf335: all phases passed"
