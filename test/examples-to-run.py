#! /usr/bin/env python3
## -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-

# Examples ns-3's ./test.py runs for this module (in an ns-3 source tree, with examples
# enabled): a list of (example_name_with_arguments, do_run, do_valgrind_run) tuples, each
# condition evaluated by test.py. test.py runs them in testpy-output/<date>/ under the ns-3 top
# directory, hence the ../../ paths to the module's files; output goes to /tmp.

cpp_examples = [
    ("crux-minimal", "True", "False"),
    ("crux-experiment --scenario=../../contrib/crux/scenarios/smoke.json --fabric=flow --quiet "
     "--outputDir=/tmp/crux-examples-to-run/smoke-flow", "True", "False"),
    ("crux-trace-run --topology=clos --days=0.25 --schedulers=crux,ecmp --quiet "
     "--outputDir=/tmp/crux-examples-to-run/trace", "True", "False"),
    ("lingjun-trace-stats --days=1 --topo=../../contrib/crux/data/lingjun-2023/topo.csv", "True",
     "False"),
    ("user-scheduler --scenario=../../contrib/crux/scenarios/smoke.json --cases=1 "
     "--outputDir=/tmp/crux-examples-to-run/user-scheduler", "True", "False"),
]

# The Python examples need ns-3's Python bindings (--enable-python-bindings) and cppyy.
python_examples = []
