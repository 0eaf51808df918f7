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
for tool in cmake python3 g++ ninja tar awk; do
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
configure_args=(configure -G Ninja -d "$profile" --enable-examples --enable-tests
  --enable-modules=crux --filter-module-examples-and-tests=crux)
# shellcheck disable=SC2206 # word splitting of the extra arguments is intended
[ -z "${CRUX_NS3_CONFIGURE_ARGS:-}" ] || configure_args+=(${CRUX_NS3_CONFIGURE_ARGS})
stamp=$cache/configure.stamp
lock=$ns3dir/.lock-ns3_linux_build
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
