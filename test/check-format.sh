#!/usr/bin/env bash
# The module's C++ sources follow ns-3's .clang-format (the copy at the module root, taken from
# the ns-3.37 source tree): clang-format --dry-run --Werror on every tracked .h/.cc file.
# Prints one line per file that would change and exits 1; exit 0 when all are formatted.
# Fix with: clang-format -i <file>   (Debian's clang-format 14, as ns-3 3.37 accepts 14-16).
# Usage: check-format.sh <module root> [clang-format binary]
set -u
root=$1
cf=${2:-clang-format}
cd "$root" || exit 2
command -v "$cf" >/dev/null || { echo "check-format: $cf not found (apt-get install clang-format)"; exit 1; }
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.h' '*.cc' | grep -v '^build/' | sort -u)
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "check-format: $f is not formatted (clang-format -i $f)"
    bad=$((bad + 1))
  fi
done
echo "check-format: ${#files[@]} files, $bad not formatted"
[ "$bad" -eq 0 ]
