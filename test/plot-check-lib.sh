# Shared set-up of the plot checks (test/check-plots.sh, test/check-paper-figures.sh); source it
# after setting $py (python with matplotlib and pandas). Exits 77 (ctest SKIP_RETURN_CODE) if $py
# cannot import matplotlib/numpy/pandas; otherwise provides $work (a temporary directory removed on exit),
# $fails (0) and fail <message> (prints "FAIL <message>", counts it).
if ! "$py" -c 'import matplotlib, numpy, pandas' 2>/dev/null; then
    echo "SKIP: $py cannot import matplotlib/numpy/pandas (scripts/setup.sh installs them into build/venv)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() {
    echo "FAIL $*"
    fails=$((fails + 1))
}
