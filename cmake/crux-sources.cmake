# Explicit file lists of the crux module, shared by both build modes of CMakeLists.txt.
# Keep in sync with wscript; test/check-file-lists.py checks the three against the disk.
# Paths are relative to the module root.

# Pure C++ scheduling layer (no ns-3 includes, no Simulator calls).
set(CRUX_SCHEDULING_SOURCES
    # --- scheduling ---
)

set(CRUX_SOURCES
    ${CRUX_SCHEDULING_SOURCES}
    # --- fabric ---
    model/fabric/qbb-net-device.cc
    # --- transport ---
    model/transport/message-transport.cc
    # --- workload ---
    model/workload/crux-scenario.cc
    # --- metrics ---
    # --- helper ---
)

set(CRUX_HEADERS
    # --- scheduling ---
    # --- fabric ---
    model/fabric/qbb-net-device.h
    # --- transport ---
    model/transport/message-transport.h
    # --- workload ---
    model/workload/crux-scenario.h
    # --- metrics ---
    # --- helper ---
)

# ns-3 TestSuites (simulations), compiled into the crux test library.
set(CRUX_TEST_SOURCES
    # --- fabric ---
    # --- transport ---
    # --- workload ---
    # --- helper ---
)

# Names of the ns-3 TestSuites above; ctest runs each one separately.
set(CRUX_TEST_SUITES
    # --- fabric ---
    # --- transport ---
    # --- workload ---
    # --- helper ---
)

# GoogleTest sources for the pure scheduling layer.
set(CRUX_GTEST_SOURCES
    test/gtest/scenario-test.cc
    # --- scheduling ---
)

# Example programs: examples/<name>.cc
set(CRUX_EXAMPLES
)

# Benchmark programs: bench/<name>.cc
set(CRUX_BENCH_PROGRAMS
)
