# Shared by the bench/run-*.sh scripts (sourced, not run).
# Configures the CMake build directory $1 for the source tree $2 when it has no CMakeCache.txt
# yet (Ninja if available), logging to $3/configure.log, which is printed on failure.
crux_bench_configure() {
    local build_dir=$1 repo=$2 tmp=$3
    [[ -f "$build_dir/CMakeCache.txt" ]] && return 0
    local gen=()
    if command -v ninja > /dev/null; then gen=(-G Ninja); fi
    echo "== configuring $build_dir"
    mkdir -p "$build_dir"
    cmake -S "$repo" -B "$build_dir" "${gen[@]}" > "$tmp/configure.log" 2>&1 || {
        cat "$tmp/configure.log" >&2
        exit 1
    }
}
