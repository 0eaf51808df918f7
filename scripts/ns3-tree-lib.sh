# Shared by scripts/waf335.sh and scripts/intree.sh (sourced, not run): the phase timer and error
# reporting, reading crux's file lists, unpacking an ns-3 source tree into the cache, the
# contrib/crux symlink (recompiling crux when it points to another clone), and the test.py
# phases (examples of test/examples-to-run.py, then crux's suites one by one).
#
# Before sourcing, the script sets: tag (the prefix of its messages, e.g. "intree"), here (the
# crux clone), cache and ns3dir (the cached ns-3 tree), ns3_version and fullness. It defines
# crux_testpy (runs ns-3's ./test.py in $ns3dir with the given arguments, without building).
# shellcheck shell=bash

phase=setup
phase_start=$EPOCHREALTIME
script_start=$EPOCHREALTIME
timings=()

print_timings() {
  [ ${#timings[@]} -gt 0 ] || return 0
  echo "$tag: phase timings (seconds):"
  printf '  %s\n' "${timings[@]}"
  awk -v a="$script_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "  total      %8.1f\n", b - a }'
}

on_exit() {
  local rc=$?
  print_timings
  if [ $rc -ne 0 ]; then
    echo "$tag: FAILED in phase '$phase' (exit status $rc)" >&2
  fi
}
trap on_exit EXIT

die() {
  echo "$tag: ERROR in phase '$phase': $*" >&2
  exit 1
}

begin() {
  phase=$1
  phase_start=$EPOCHREALTIME
  echo "=== $tag: $phase"
}

end() {
  local dt
  dt=$(awk -v a="$phase_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  timings+=("$(printf '%-10s %8s  %s' "$phase" "$dt" "${1:-}")")
  echo "=== $tag: $phase done in ${dt}s ${1:-}"
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

# unpack_ns3_tree <tarball> <marker>: unpacks the tarball into the cache and makes the ns-3 tree
# in it (the folder, at most 3 levels down, holding the file <marker>, test.py and a VERSION file
# of $ns3_version) $ns3dir, replacing what was there. Ends the phase.
unpack_ns3_tree() {
  local tarball=$1 marker=$2 unpack tree="" f d
  unpack=$(mktemp -d "$cache/unpack.XXXXXX")
  tar -xf "$tarball" -C "$unpack" || die "cannot unpack $tarball"
  while IFS= read -r f; do
    d=$(dirname "$f")
    if [ -f "$d/VERSION" ] && [ -f "$d/test.py" ]; then
      tree=$d
      break
    fi
  done < <(find "$unpack" -maxdepth 3 -type f -name "$marker")
  [ -n "$tree" ] || die "no ns-3 tree (./$marker + VERSION + test.py) inside $tarball"
  [ "$(cat "$tree/VERSION")" = "$ns3_version" ] ||
    die "$tarball holds ns-3 $(cat "$tree/VERSION"), expected $ns3_version"
  rm -rf "$ns3dir"
  mv "$tree" "$ns3dir"
  rm -rf "$unpack"
  end "(from $(basename "$tarball"))"
}

# link_crux <objects> <rm|objects>: contrib/crux -> this clone. When it pointed to another
# clone, whose files may be older than the objects built from it, timestamps are made
# irrelevant by dropping crux's objects under <objects> (ns-3's own stay): the whole folder
# (rm) or only its *.o files (objects: the folder also holds the build system's files).
link_crux() {
  local objects=$1 how=$2 link=$ns3dir/contrib/crux
  if [ -L "$link" ]; then
    if [ "$(readlink "$link")" != "$here" ]; then
      ln -sfn "$here" "$link"
      if [ -d "$objects" ]; then
        echo "$tag: contrib/crux now points to $here; recompiling crux"
        if [ "$how" = rm ]; then
          rm -rf "$objects"
        else
          find "$objects" -name '*.o' -delete
        fi
      fi
    fi
  elif [ -e "$link" ]; then
    die "$link exists and is not a symlink to a crux clone; move it away"
  else
    ln -s "$here" "$link"
  fi
}

# run_examples: ns-3's own way: ./test.py runs the examples listed in test/examples-to-run.py,
# each must PASS. Sets $passed to their number.
run_examples() {
  [ -f "$here/test/examples-to-run.py" ] || die "test/examples-to-run.py is missing"
  local want exlog
  want=$(grep -c '^    ("' "$here/test/examples-to-run.py")
  exlog=$(mktemp "${TMPDIR:-/tmp}/crux-$tag-examples.XXXXXX")
  crux_testpy --constrain=example >"$exlog" 2>&1 ||
    {
      cat "$exlog"
      die "./test.py --constrain=example failed"
    }
  cat "$exlog"
  passed=$(grep -c "PASS: Example contrib/crux/" "$exlog" || true)
  [ "$passed" -eq "$want" ] || die "$passed of the $want examples of test/examples-to-run.py passed"
  rm -f "$exlog"
}

# run_suites <suite>...: each suite by ./test.py at $fullness; the phase fails naming the failed
# suites (logs kept).
run_suites() {
  [ $# -gt 0 ] || die "CRUX_TEST_SUITES in cmake/crux-sources.cmake is empty"
  local results s rc suite_start failed=()
  results=$(mktemp -d "${TMPDIR:-/tmp}/crux-$tag-tests.XXXXXX")
  for s in "$@"; do
    # test.py exits 0 when passed + skipped == total, so also when the suite is unknown (0 of 0)
    # or skipped: require its own PASS line as well.
    rc=0
    suite_start=$EPOCHREALTIME
    crux_testpy --fullness="$fullness" --suite="$s" --text="$results/$s" >"$results/$s.log" 2>&1 || rc=$?
    cat "$results/$s.log"
    echo "$tag: suite $s took $(awk -v a="$suite_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s"
    # test.py prints "[i/n] PASS: TestSuite <name>" (the counter is absent in older versions).
    if [ $rc -ne 0 ] ||
      ! sed -E 's/^\[[0-9]+\/[0-9]+\] //' "$results/$s.log" | grep -qxF "PASS: TestSuite $s"; then
      failed+=("$s")
      [ ! -f "$results/$s.txt" ] || cat "$results/$s.txt"
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "$(($# - ${#failed[@]})) passed, ${#failed[@]} failed"
    die "test.py suites failed: ${failed[*]} (logs in $results)"
  fi
  rm -rf "$results"
  echo "$# passed, 0 failed"
}
