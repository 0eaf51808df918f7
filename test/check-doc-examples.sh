#!/usr/bin/env bash
# The doc shows what the shipped examples print: run each example named below and check that
# the line it prints stands verbatim in doc/crux.rst (so the doc cannot drift from the code).
# Usage: check-doc-examples.sh <dir holding the example programs> <module root>
set -u
bindir=$1
root=$2
fail=0
for ex in crux-minimal; do
  out=$("$bindir/$ex" 2>&1 | tail -n 1)
  if [ -z "$out" ] || ! grep -qF -- "$out" "$root/doc/crux.rst"; then
    echo "check-doc-examples: $ex printed '$out', which doc/crux.rst does not show"
    fail=1
  else
    echo "check-doc-examples: $ex: '$out' is in doc/crux.rst"
  fi
done
exit $fail
