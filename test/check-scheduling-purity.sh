#!/usr/bin/env bash
# The scheduling layer links ns-3's core (Object, TypeId, Attributes) but must never call the
# Simulator: no object of the static library crux-scheduling may reference a symbol of
# ns3::Simulator (nm -C, defined or undefined; ns3::Now() too). Prints one line per object and
# symbol found and exits 1; exit 0 when the library is clean.
# Usage: check-scheduling-purity.sh <nm> <libcrux-scheduling.a>
#        check-scheduling-purity.sh --self-test <nm> <probe.a>
#   --self-test: the check must fail on the probe library (test/purity/simulator-probe.cc, a
#   Simulator::Now() call) and name that symbol, i.e. the check can fail.
set -u

check() { # <nm> <lib>: prints "<object>: <symbol>" per violation, returns 1 if any
  local nm=$1 lib=$2
  [ -f "$lib" ] || { echo "check-scheduling-purity: $lib not found"; return 2; }
  local out
  out=$("$nm" -C "$lib" 2>&1) || { echo "check-scheduling-purity: $nm -C $lib failed: $out"; return 2; }
  local found
  found=$(printf '%s\n' "$out" | awk '
    /:$/ { obj = substr($0, 1, length($0) - 1); next }
    /ns3::Simulator::|ns3::Now\(\)/ { sub(/^[0-9a-fA-F ]*[A-Za-z] /, ""); print obj ": " $0 }')
  if [ -n "$found" ]; then
    printf 'check-scheduling-purity: %s references the ns-3 Simulator:\n' "$lib"
    printf '  %s\n' "$found" | sort -u
    return 1
  fi
  echo "check-scheduling-purity: $lib: $(printf '%s\n' "$out" | grep -c ':$') objects, no Simulator reference"
  return 0
}

if [ "${1:-}" = "--self-test" ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --self-test <nm> <probe.a>"; exit 2; }
  out=$(check "$2" "$3"); rc=$?
  printf '%s\n' "$out"
  if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "ns3::Simulator::Now()"; then
    echo "check-scheduling-purity self-test: the probe was rejected naming ns3::Simulator::Now() (ok)"
    exit 0
  fi
  echo "check-scheduling-purity self-test FAILED: expected exit 1 naming ns3::Simulator::Now(), got $rc"
  exit 1
fi
[ $# -eq 2 ] || { echo "usage: $0 <nm> <libcrux-scheduling.a>"; exit 2; }
check "$1" "$2"
