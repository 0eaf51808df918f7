# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
#
# crux: communication scheduling for deep-learning training clusters (ns-3 module).
#
# Build file for waf-based ns-3 trees (ns-3 <= 3.35): copy or link this repository to
# contrib/crux of the ns-3 tree, then `./waf configure --enable-modules=crux --enable-examples
# --enable-tests -d release --disable-werror` and `./waf build`. Tested with ns-3.35 (the first
# waf release whose default C++ dialect is C++17) by scripts/waf335.sh, which CI runs.
# The sources use the ns-3.36+ conveniences (functor events and callbacks) only through
# model/util/crux-compat.h, which builds on ns-3.35 too.
#
# The lists below must equal cmake/crux-sources.cmake (CRUX_PURE_SOURCES,
# CRUX_PURE_DRIVER_SOURCES, CRUX_SOURCES, CRUX_HEADERS, CRUX_TEST_SOURCES) and examples/wscript
# must build exactly CRUX_EXAMPLES; test/check-file-lists.py (ctest entry `check-file-lists`)
# checks this and the files on disk.
#
# Standalone-only (not built here): the GoogleTest programs (CRUX_GTEST_SOURCES, test/gtest/),
# the benchmark programs (CRUX_BENCH_PROGRAMS, bench/) and the helper static libraries
# crux-scheduling / crux-pure-drivers / crux-scenario. They belong to the standalone CMake build
# against an installed ns-3 (see CMakeLists.txt); ns-3's waf has no GoogleTest integration.
# Python bindings are not generated here either (the pybindgen step of ns-3 <= 3.35 needs
# scanned bindings files, which this module does not ship).

# Simulator-free C++ of the model layers (cluster description, scheduling with the fluid
# evaluator, pure metrics, t_j and I_j): model/ files only.
CRUX_PURE_SOURCES = [
    # --- cluster description ---
    'model/cluster/cluster-topology.cc',
    'model/cluster/cluster-topology-builders.cc',
    'model/cluster/gpu-placement.cc',
    # --- scheduling ---
    'model/scheduling/cluster-model.cc',
    'model/scheduling/comm-scheduler.cc',
    'model/scheduling/ecmp-scheduler.cc',
    'model/scheduling/shared-link-timeline.cc',
    'model/scheduling/dag-max-k-cut.cc',
    'model/scheduling/path-selection.cc',
    'model/scheduling/crux-scheduler.cc',
    'model/scheduling/sincronia-scheduler.cc',
    'model/scheduling/varys-scheduler.cc',
    'model/scheduling/taccl-scheduler.cc',
    'model/scheduling/cassini-scheduler.cc',
    'model/scheduling/optimal-scheduler.cc',
    'model/scheduling/flow-evaluator.cc',
    # --- metrics ---
    'model/metrics/contention-decomposition.cc',
    'model/util/water-filling.cc',
    'model/metrics/sample-statistics.cc',
    # --- the one definition of t_j and I_j ---
    'model/util/gpu-intensity.cc',
]

# Simulator-free experiment drivers (case generator, stage ablation, progress, parallel runs).
CRUX_PURE_DRIVER_SOURCES = [
    'drivers/random-cluster.cc',
    'drivers/stage-ablation.cc',
    'drivers/progress-reporter.cc',
    'drivers/parallel-runs.cc',
]

CRUX_SOURCES = CRUX_PURE_SOURCES + CRUX_PURE_DRIVER_SOURCES + [
    # --- shared value types (bottom layer) ---
    'model/util/five-tuple.cc',
    # --- fabric ---
    'model/fabric/qbb-net-device.cc',
    'model/fabric/qbb-net-device-pfc.cc',
    'model/fabric/qbb-net-device-tx.cc',
    'model/fabric/qbb-channel.cc',
    'model/fabric/pfc-pause-header.cc',
    'model/fabric/inband-telemetry-header.cc',
    'model/fabric/switch-mmu.cc',
    'model/fabric/crux-switch.cc',
    'model/fabric/crux-topology.cc',
    # --- transport ---
    'model/transport/message-transport.cc',
    'model/transport/roce-header.cc',
    'model/transport/rdma-congestion-control.cc',
    'model/transport/dcqcn-congestion-control.cc',
    'model/transport/hpcc-congestion-control.cc',
    'model/transport/rdma-queue-pair.cc',
    'model/transport/rdma-nic.cc',
    'model/transport/rdma-nic-rx.cc',
    'model/transport/rdma-nic-tx.cc',
    'model/transport/rdma-transport.cc',
    'model/transport/flow-transport.cc',
    # --- workload ---
    'model/util/checked-parse.cc',
    'model/util/checked-command-line.cc',
    'model/workload/crux-scenario.cc',
    'model/workload/model-zoo.cc',
    'model/workload/parallel-plan.cc',
    'model/workload/training-step.cc',
    'model/workload/dlt-job.cc',
    'model/workload/comm-dag.cc',
    'model/workload/comm-dag-runner.cc',
    'model/workload/collectives.cc',
    'model/workload/collectives-tree.cc',
    'model/workload/collectives-p2p.cc',
    'model/workload/collectives-nccl.cc',
    'model/workload/collective-algorithm.cc',
    'model/workload/nccl-model.cc',
    'model/workload/training-iteration.cc',
    'model/workload/chakra-trace.cc',
    'model/workload/chakra-trace-check.cc',
    'model/workload/dlt-job-application.cc',
    # --- metrics ---
    'model/metrics/gpu-intensity-tracker.cc',
    'model/metrics/link-throughput-sampler.cc',
    # --- trace ---
    'model/trace/csv-reader.cc',
    'model/trace/lingjun-trace.cc',
    'model/trace/lingjun-trace-statistics.cc',
    'model/trace/model-mapping.cc',
    'model/trace/lingjun-trace-generator.cc',
    'model/trace/epoch-rate-model.cc',
    'model/trace/epoch-engine.cc',
    # --- helper (build and install) ---
    'helper/qbb-helper.cc',
    'helper/crux-topology-helper.cc',
    'helper/crux-helper.cc',
    'helper/dlt-job-helper.cc',
    'helper/rdma-transport-helper.cc',
    'helper/flow-transport-helper.cc',
    'helper/sched-job-builder.cc',
    'helper/live-cluster-fabric.cc',
    # --- experiment drivers ---
    'drivers/result-directory.cc',
    'drivers/crux-experiment.cc',
    'drivers/experiment-result.cc',
    'drivers/scenario-topology.cc',
    'drivers/scenario-jobs.cc',
    'drivers/run-statistics.cc',
    'drivers/scenario-run.cc',
    'drivers/experiment-output.cc',
    'drivers/experiment-summary.cc',
    'drivers/cluster-run.cc',
    'drivers/cluster-run-engine.cc',
]

CRUX_HEADERS = [
    # --- shared value types and constants (bottom layer) ---
    'model/util/crux-types.h',
    'model/util/five-tuple.h',
    'model/util/roce-constants.h',
    # --- cluster description ---
    'model/cluster/cluster-topology.h',
    'model/cluster/cluster-topology-spec.h',
    'model/cluster/gpu-placement.h',
    # --- scheduling ---
    'model/scheduling/cluster-model.h',
    'model/scheduling/comm-scheduler.h',
    'model/scheduling/ecmp-scheduler.h',
    'model/scheduling/shared-link-timeline.h',
    'model/scheduling/dag-max-k-cut.h',
    'model/scheduling/path-selection.h',
    'model/scheduling/crux-scheduler.h',
    'model/scheduling/sincronia-scheduler.h',
    'model/scheduling/varys-scheduler.h',
    'model/scheduling/taccl-scheduler.h',
    'model/scheduling/cassini-scheduler.h',
    'model/scheduling/optimal-scheduler.h',
    'model/scheduling/flow-evaluator.h',
    # --- fabric ---
    'model/fabric/qbb-net-device.h',
    'model/fabric/wire-time.h',
    'model/fabric/pooled-event.h',
    'model/fabric/qbb-channel.h',
    'model/fabric/pfc-pause-header.h',
    'model/fabric/inband-telemetry-header.h',
    'model/fabric/crux-run-error.h',
    'model/fabric/switch-mmu.h',
    'model/fabric/crux-switch.h',
    'model/fabric/crux-topology.h',
    # --- transport ---
    'model/transport/message-transport.h',
    'model/transport/roce-header.h',
    'model/transport/rdma-congestion-control.h',
    'model/transport/dcqcn-congestion-control.h',
    'model/transport/hpcc-congestion-control.h',
    'model/transport/rdma-queue-pair.h',
    'model/transport/rdma-nic.h',
    'model/transport/rdma-transport.h',
    'model/transport/flow-transport.h',
    # --- workload ---
    'model/util/checked-parse.h',
    'model/util/checked-command-line.h',
    # --- ns-3.35/3.37 adapter (functor events and callbacks) ---
    'model/util/crux-compat.h',
    'model/util/gpu-intensity.h',
    'model/workload/crux-scenario.h',
    'model/workload/model-zoo.h',
    'model/workload/parallel-plan.h',
    'model/workload/training-step.h',
    'model/workload/dlt-job.h',
    'model/workload/comm-dag.h',
    'model/workload/comm-dag-runner.h',
    'model/workload/collectives.h',
    'model/workload/collectives-detail.h',
    'model/workload/collective-algorithm.h',
    'model/workload/nccl-model.h',
    'model/workload/training-iteration.h',
    'model/workload/chakra-trace.h',
    'model/workload/dlt-job-application.h',
    # --- metrics ---
    'model/util/water-filling.h',
    'model/metrics/contention-decomposition.h',
    'model/metrics/gpu-intensity-tracker.h',
    'model/metrics/link-throughput-sampler.h',
    'model/metrics/sample-statistics.h',
    # --- trace ---
    'model/trace/csv-reader.h',
    'model/trace/lingjun-trace.h',
    'model/trace/model-mapping.h',
    'model/trace/lingjun-trace-generator.h',
    'model/trace/epoch-rate-model.h',
    'model/trace/epoch-engine.h',
    # --- helper (build and install) ---
    'helper/qbb-helper.h',
    'helper/crux-topology-helper.h',
    'helper/crux-helper.h',
    'helper/dlt-job-helper.h',
    'helper/rdma-transport-helper.h',
    'helper/flow-transport-helper.h',
    'helper/sched-job-builder.h',
    'helper/live-cluster-fabric.h',
    # --- experiment drivers ---
    'drivers/random-cluster.h',
    'drivers/stage-ablation.h',
    'drivers/progress-reporter.h',
    'drivers/parallel-runs.h',
    'drivers/result-directory.h',
    'drivers/crux-experiment.h',
    'drivers/experiment-result.h',
    'drivers/scenario-topology.h',
    'drivers/scenario-jobs.h',
    'drivers/run-statistics.h',
    'drivers/scenario-run.h',
    'drivers/experiment-output.h',
    'drivers/experiment-summary.h',
    'drivers/cluster-run.h',
    'drivers/cluster-run-engine.h',
    'drivers/distributed-run.h',
]

# Build variants (see cmake/crux-sources.cmake): with ns-3's mpi module, or without it.
CRUX_MPI_SOURCES = [
    'model/fabric/qbb-remote-channel.cc',
    'drivers/distributed-run-mpi.cc',
]
CRUX_NO_MPI_SOURCES = [
    'drivers/distributed-run-none.cc',
]
CRUX_MPI_HEADERS = [
    'model/fabric/qbb-remote-channel.h',
]

# ns-3 TestSuites (compiled into the crux test library, run by ns-3's test.py / test-runner).
CRUX_TEST_SOURCES = [
    # fabric
    'test/qbb-net-device-test-suite.cc',
    'test/crux-switch-test-suite.cc',
    # transport
    'test/rdma-transport-test-suite.cc',
    'test/rdma-cc-test-suite.cc',
    'test/flow-transport-test-suite.cc',
    'test/intra-host-test-suite.cc',
    # workload
    'test/dlt-workload-test-suite.cc',
    'test/collectives-test-suite.cc',
    'test/nccl-collectives-test-suite.cc',
    'test/training-step-test-suite.cc',
    'test/chakra-test-suite.cc',
    # experiment
    'test/crux-experiment-test-suite.cc',
    # helper
    'test/live-cluster-fabric-test-suite.cc',
    'test/crux-helper-test-suite.cc',
    'test/cluster-run-test-suite.cc',
    'test/trace-intra-host-test-suite.cc',
    # --- trace ---
    'test/epoch-engine-test-suite.cc',
    # scheduling
    'test/flow-evaluator-crosscheck-test-suite.cc',
    # ns-3.35/3.37 adapter
    'test/crux-compat-test-suite.cc',
]

# Protocol-buffer schemas (= CRUX_PROTO_FILES): compiled by protoc into the build directory;
# the library links libprotobuf (Debian: protobuf-compiler, libprotobuf-dev); doc/crux.rst,
# "Chakra execution traces".
CRUX_PROTO_FILES = [
    'model/workload/chakra-et.proto',
]

# Header-only libraries the module needs, as (header, Debian package) pairs.
_REQUIRED_HEADERS = [
    ('nlohmann/json.hpp', 'nlohmann-json3-dev'),
    ('boost/graph/adjacency_list.hpp', 'libboost-graph-dev'),
    ('boost/graph/topological_sort.hpp', 'libboost-graph-dev'),
    ('boost/graph/breadth_first_search.hpp', 'libboost-graph-dev'),
    ('boost/crc.hpp', 'libboost-dev'),
    ('boost/date_time/gregorian/gregorian_types.hpp', 'libboost-dev'),
]

_CXX17_FRAGMENT = '''
#include <optional>
#include <string_view>
int main() { std::optional<std::string_view> s{"crux"}; return s->size() == 4 ? 0 : 1; }
'''


def _not_built(conf, reason):
    """Report crux as disabled and keep waf from building it (ns-3's optional-module idiom)."""
    conf.report_optional_feature('crux', 'crux (DLT communication scheduling)', False, reason)
    if 'crux' not in conf.env['MODULES_NOT_BUILT']:
        conf.env.append_value('MODULES_NOT_BUILT', 'crux')


def configure(conf):
    # C++17 (std::optional, structured bindings, inline variables): ns-3.35 already passes
    # -std=c++17; older waf trees default to C++11, so add it when no C++17+ flag is present.
    cxx_std_ok = ('-std=c++17', '-std=gnu++17', '-std=c++2a', '-std=gnu++2a',
                  '-std=c++20', '-std=gnu++20')
    if not any(flag in conf.env['CXXFLAGS'] for flag in cxx_std_ok):
        conf.env.append_value('CXXFLAGS', '-std=c++17')
    if not conf.check_cxx(fragment=_CXX17_FRAGMENT, execute=False, mandatory=False,
                          msg='Checking for C++17 support (crux)'):
        _not_built(conf, 'the C++ compiler does not accept C++17')
        return

    for header, package in _REQUIRED_HEADERS:
        if not conf.check_cxx(header_name=header, mandatory=False,
                              msg='Checking for %s (crux)' % header):
            _not_built(conf, '%s not found (Debian/Ubuntu: apt-get install %s)'
                       % (header, package))
            return

    # Chakra execution traces: protoc and libprotobuf
    if not conf.find_program('protoc', var='PROTOC', mandatory=False):
        _not_built(conf, 'protoc not found (Debian/Ubuntu: apt-get install protobuf-compiler)')
        return
    if not conf.check_cfg(package='protobuf', args=['--cflags', '--libs'],
                          uselib_store='PROTOBUF', mandatory=False):
        _not_built(conf, 'libprotobuf not found (Debian/Ubuntu: apt-get install libprotobuf-dev)')
        return

    conf.report_optional_feature('crux', 'crux (DLT communication scheduling)', True, '')


def build(bld):
    if 'crux' in bld.env['MODULES_NOT_BUILT']:
        return

    # protoc: model/workload/<name>.proto -> <build>/.../<name>.pb.cc/.pb.h, compiled into the
    # module; the directory of the generated header is on the module's include path.
    generated = []
    for proto in CRUX_PROTO_FILES:
        node = bld.path.find_resource(proto)
        pb_cc = node.change_ext('.pb.cc')
        pb_h = node.change_ext('.pb.h')
        bld(rule='${PROTOC} --cpp_out=${TGT[0].parent.abspath()} '
                 '-I${SRC[0].parent.abspath()} ${SRC[0].abspath()}',
            source=node, target=[pb_cc, pb_h])
        generated.append(pb_cc)

    # ns-3's distributed simulator: only when the tree was configured with --enable-mpi
    # (CRUX_MPI_SOURCES, depending on the mpi module, as ns-3.35's point-to-point does for its
    # remote channel), otherwise the one-rank stand-in. Not tested: scripts/waf335.sh builds
    # without MPI.
    deps = ['core', 'network', 'internet']
    mpi = bool(bld.env['ENABLE_MPI'])
    if mpi:
        deps = deps + ['mpi']
    module = bld.create_ns3_module('crux', deps)
    module.source = CRUX_SOURCES + generated
    if mpi:
        module.source += CRUX_MPI_SOURCES
    else:
        module.source += CRUX_NO_MPI_SOURCES
    module.use.append('PROTOBUF')
    module.includes = [bld.path.find_dir('model/workload').get_bld().abspath()]

    module_test = bld.create_ns3_module_test_library('crux')
    module_test.source = CRUX_TEST_SOURCES

    # Public headers are installed flat as ns3/<name>.h, as in the CMake builds.
    headers = bld(features='ns3header')
    headers.module = 'crux'
    headers.source = CRUX_HEADERS
    if mpi:
        headers.source += CRUX_MPI_HEADERS

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
