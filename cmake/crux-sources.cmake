# The explicit file lists of the crux module: the one place its files are listed. Both build
# modes of CMakeLists.txt include this file; the waf build (wscript, examples/wscript) reads it
# with cmake/crux_sources.py and holds no list of its own. test/check-file-lists.py checks that
# the reader gives the lists CMake evaluates, and the lists against the files on disk.
# Paths are relative to the module root.
#
# Keep to what cmake/crux_sources.py understands (it stops the waf build naming the line of
# anything else): set(NAME item ...) blocks only, unquoted items one per line or space-separated,
# ${LIST} of a list set earlier in this file as a whole item, and # line comments.

# Simulator-free C++ of the model layers: the cluster description, the scheduling layer with the
# fluid evaluator, the pure metrics and the one definition of t_j and I_j (no Simulator calls;
# also built as the static library crux-scheduling for GoogleTest). model/ files only: the
# drivers' simulator-free files are CRUX_PURE_DRIVER_SOURCES (test/check-file-lists.py).
set(CRUX_PURE_SOURCES
    # --- cluster description ---
    model/cluster/cluster-topology.cc
    model/cluster/cluster-topology-builders.cc
    model/cluster/gpu-placement.cc
    # --- scheduling ---
    model/scheduling/cluster-model.cc
    model/scheduling/comm-scheduler.cc
    model/scheduling/ecmp-scheduler.cc
    model/scheduling/shared-link-timeline.cc
    model/scheduling/dag-max-k-cut.cc
    model/scheduling/path-selection.cc
    model/scheduling/crux-scheduler.cc
    model/scheduling/crux-priority-assignment.cc
    model/scheduling/sincronia-scheduler.cc
    model/scheduling/varys-scheduler.cc
    model/scheduling/taccl-scheduler.cc
    model/scheduling/cassini-scheduler.cc
    model/scheduling/optimal-scheduler.cc
    model/scheduling/flow-evaluator.cc
    model/scheduling/flow-evaluator-run.cc
    model/scheduling/steady-rate.cc
    # --- metrics ---
    model/metrics/contention-decomposition.cc
    model/util/water-filling.cc
    model/metrics/sample-statistics.cc
    # --- the one definition of t_j and I_j ---
    model/util/gpu-intensity.cc
)

# Simulator-free experiment drivers: the microbenchmark's case generator and stage ablation, the
# progress printer and the parallel runs (also built as the static library crux-pure-drivers,
# over crux-scheduling, for GoogleTest).
set(CRUX_PURE_DRIVER_SOURCES
    drivers/random-cluster.cc
    drivers/stage-ablation.cc
    drivers/progress-reporter.cc
    drivers/parallel-runs.cc
)

set(CRUX_SOURCES
    ${CRUX_PURE_SOURCES}
    ${CRUX_PURE_DRIVER_SOURCES}
    # --- shared value types (bottom layer) ---
    model/util/five-tuple.cc
    # --- fabric ---
    model/fabric/qbb-net-device.cc
    model/fabric/qbb-traffic-classes.cc
    model/fabric/qbb-net-device-pfc.cc
    model/fabric/qbb-net-device-tx.cc
    model/fabric/qbb-channel.cc
    model/fabric/pfc-pause-header.cc
    model/fabric/inband-telemetry-header.cc
    model/fabric/switch-mmu.cc
    model/fabric/crux-switch.cc
    model/fabric/crux-topology.cc
    model/fabric/crux-topology-paths.cc
    # --- transport ---
    model/transport/message-transport.cc
    model/transport/roce-header.cc
    model/transport/rdma-congestion-control.cc
    model/transport/dcqcn-congestion-control.cc
    model/transport/hpcc-congestion-control.cc
    model/transport/rdma-queue-pair.cc
    model/transport/rdma-nic.cc
    model/transport/rdma-nic-rx.cc
    model/transport/rdma-nic-tx.cc
    model/transport/rdma-transport.cc
    model/transport/flow-transport.cc
    # --- input checks ---
    model/util/checked-parse.cc
    model/util/checked-command-line.cc
    # --- workload ---
    model/workload/crux-scenario.cc
    model/workload/crux-scenario-reader.cc
    model/workload/model-zoo.cc
    model/workload/parallel-plan.cc
    model/workload/training-step.cc
    model/workload/dlt-job.cc
    model/workload/comm-dag.cc
    model/workload/comm-dag-runner.cc
    model/workload/collectives.cc
    model/workload/collectives-tree.cc
    model/workload/collectives-p2p.cc
    model/workload/collectives-nccl.cc
    model/workload/collective-algorithm.cc
    model/workload/nccl-model.cc
    model/workload/training-iteration.cc
    model/workload/plan-builder.cc
    model/workload/plan-builder-gradients.cc
    model/workload/chakra-trace.cc
    model/workload/chakra-trace-check.cc
    model/workload/dlt-job-application.cc
    # --- metrics ---
    model/metrics/gpu-intensity-tracker.cc
    model/metrics/link-throughput-sampler.cc
    # --- trace ---
    model/trace/rfc4180-csv.cc
    model/trace/lingjun-trace.cc
    model/trace/lingjun-trace-statistics.cc
    model/trace/model-mapping.cc
    model/trace/lingjun-trace-generator.cc
    model/trace/epoch-coarsening.cc
    model/trace/epoch-rate-model.cc
    model/trace/epoch-engine.cc
    # --- helper (build and install) ---
    helper/qbb-helper.cc
    helper/crux-topology-helper.cc
    helper/crux-helper.cc
    helper/dlt-job-helper.cc
    helper/rdma-transport-helper.cc
    helper/flow-transport-helper.cc
    helper/comm-timeline.cc
    helper/sched-job-builder.cc
    helper/live-cluster-fabric.cc
    # --- experiment drivers ---
    drivers/result-directory.cc
    drivers/crux-experiment.cc
    drivers/experiment-result.cc
    drivers/scenario-topology.cc
    drivers/scenario-jobs.cc
    drivers/run-statistics.cc
    drivers/scenario-run.cc
    drivers/scenario-progress.cc
    drivers/experiment-output.cc
    drivers/experiment-summary.cc
    drivers/cluster-run.cc
    drivers/cluster-run-output.cc
    drivers/cluster-run-engine.cc
)

# Protocol-buffer schemas compiled by protoc into the build directory (their generated .pb.cc
# belong to CRUX_SOURCES' library; the .pb.h is private: no public header includes it).
set(CRUX_PROTO_FILES
    model/workload/chakra-et.proto
)

set(CRUX_HEADERS
    # --- shared value types and constants (bottom layer) ---
    model/util/crux-types.h
    model/util/five-tuple.h
    model/util/hash-mix.h
    model/util/roce-constants.h
    # --- cluster description ---
    model/cluster/cluster-topology.h
    model/cluster/cluster-topology-spec.h
    model/cluster/gpu-placement.h
    # --- scheduling ---
    model/scheduling/cluster-model.h
    model/scheduling/comm-scheduler.h
    model/scheduling/ecmp-scheduler.h
    model/scheduling/shared-link-timeline.h
    model/scheduling/dag-max-k-cut.h
    model/scheduling/path-selection.h
    model/scheduling/crux-scheduler.h
    model/scheduling/sincronia-scheduler.h
    model/scheduling/varys-scheduler.h
    model/scheduling/taccl-scheduler.h
    model/scheduling/cassini-scheduler.h
    model/scheduling/optimal-scheduler.h
    model/scheduling/flow-evaluator.h
    model/scheduling/flow-evaluator-run.h
    model/scheduling/steady-rate.h
    # --- fabric ---
    model/fabric/qbb-net-device.h
    model/fabric/wire-time.h
    model/fabric/pooled-event.h
    model/fabric/qbb-channel.h
    model/fabric/pfc-pause-header.h
    model/fabric/inband-telemetry-header.h
    model/fabric/crux-run-error.h
    model/fabric/switch-mmu.h
    model/fabric/crux-switch.h
    model/fabric/crux-topology.h
    # --- transport ---
    model/transport/message-transport.h
    model/transport/roce-header.h
    model/transport/rdma-congestion-control.h
    model/transport/dcqcn-congestion-control.h
    model/transport/hpcc-congestion-control.h
    model/transport/rdma-queue-pair.h
    model/transport/rdma-nic.h
    model/transport/rdma-transport.h
    model/transport/flow-transport.h
    # --- input checks ---
    model/util/checked-parse.h
    model/util/checked-command-line.h
    # --- ns-3.35/3.37 adapter (functor events and callbacks) ---
    model/util/crux-compat.h
    model/util/gpu-intensity.h
    # --- workload ---
    model/workload/crux-scenario.h
    model/workload/model-zoo.h
    model/workload/parallel-plan.h
    model/workload/training-step.h
    model/workload/dlt-job.h
    model/workload/comm-dag.h
    model/workload/comm-dag-runner.h
    model/workload/collectives.h
    model/workload/collectives-detail.h
    model/workload/collective-algorithm.h
    model/workload/nccl-model.h
    model/workload/training-iteration.h
    model/workload/plan-builder.h
    model/workload/chakra-trace.h
    model/workload/dlt-job-application.h
    # --- metrics ---
    model/util/water-filling.h
    model/util/parallel-tasks.h
    model/util/union-find.h
    model/util/input-file.h
    model/metrics/contention-decomposition.h
    model/metrics/gpu-intensity-tracker.h
    model/metrics/link-throughput-sampler.h
    model/metrics/sample-statistics.h
    # --- trace ---
    model/trace/rfc4180-csv.h
    model/trace/lingjun-trace.h
    model/trace/model-mapping.h
    model/trace/lingjun-trace-generator.h
    model/trace/epoch-rate-model.h
    model/trace/epoch-engine.h
    # --- helper (build and install) ---
    helper/qbb-helper.h
    helper/crux-topology-helper.h
    helper/crux-helper.h
    helper/dlt-job-helper.h
    helper/rdma-transport-helper.h
    helper/flow-transport-helper.h
    helper/comm-timeline.h
    helper/sched-job-builder.h
    helper/live-cluster-fabric.h
    # --- experiment drivers ---
    drivers/random-cluster.h
    drivers/stage-ablation.h
    drivers/progress-reporter.h
    drivers/parallel-runs.h
    drivers/result-directory.h
    drivers/crux-experiment.h
    drivers/experiment-result.h
    drivers/scenario-topology.h
    drivers/scenario-jobs.h
    drivers/run-statistics.h
    drivers/scenario-run.h
    drivers/scenario-progress.h
    drivers/experiment-output.h
    drivers/experiment-summary.h
    drivers/cluster-run.h
    drivers/cluster-run-engine.h
    drivers/distributed-run.h
)

# Build variants: ns-3's distributed simulator (MPI). CRUX_MPI_SOURCES and CRUX_MPI_HEADERS are
# compiled only when ns-3 has its mpi module (in-tree, ./ns3 configure --enable-mpi with mpi among
# the enabled modules; waf: ENABLE_MPI); otherwise CRUX_NO_MPI_SOURCES (CruxDistributed with one
# rank). Both CMake build modes and the wscript add one or the other to CRUX_SOURCES /
# CRUX_HEADERS.
set(CRUX_MPI_SOURCES
    model/fabric/qbb-remote-channel.cc
    drivers/distributed-run-mpi.cc
)
set(CRUX_NO_MPI_SOURCES
    drivers/distributed-run-none.cc
)
set(CRUX_MPI_HEADERS
    model/fabric/qbb-remote-channel.h
)

# ns-3 TestSuites (simulations), compiled into the crux test library.
set(CRUX_TEST_SOURCES
    # --- fabric ---
    test/qbb-net-device-test-suite.cc
    test/crux-switch-test-suite.cc
    # --- transport ---
    test/rdma-transport-test-suite.cc
    test/rdma-cc-test-suite.cc
    test/flow-transport-test-suite.cc
    test/intra-host-test-suite.cc
    # --- workload ---
    test/dlt-workload-test-suite.cc
    test/collectives-test-suite.cc
    test/nccl-collectives-test-suite.cc
    test/training-step-test-suite.cc
    test/chakra-test-suite.cc
    # --- experiment ---
    test/crux-experiment-test-suite.cc
    # --- helper ---
    test/live-cluster-fabric-test-suite.cc
    test/crux-helper-test-suite.cc
    test/cluster-run-test-suite.cc
    test/trace-intra-host-test-suite.cc
    test/sched-job-templates-test-suite.cc
    # --- trace ---
    test/coarse-evaluator-test-suite.cc
    test/epoch-engine-test-suite.cc
    # --- scheduling ---
    test/flow-evaluator-crosscheck-test-suite.cc
    # --- ns-3.35/3.37 adapter ---
    test/crux-compat-test-suite.cc
)

# Names of the ns-3 TestSuites above; ctest runs each one separately.
set(CRUX_TEST_SUITES
    # --- fabric ---
    crux-qbb
    crux-switch
    # --- transport ---
    crux-rdma
    crux-cc
    crux-flow
    crux-intra-host
    # --- workload ---
    crux-workload
    crux-collectives
    crux-nccl
    crux-training-step
    crux-chakra
    # --- experiment ---
    crux-experiment
    crux-sec22
    # --- helper ---
    crux-live-fabric
    crux-helper
    crux-cluster-run
    crux-trace-intra-host
    crux-sched-job-templates
    # --- trace ---
    crux-epoch-engine
    crux-coarse-evaluator
    # --- scheduling ---
    crux-evaluator-crosscheck
    # --- ns-3.35/3.37 adapter ---
    crux-compat
)

# GoogleTest sources for the pure scheduling layer.
set(CRUX_GTEST_SOURCES
    test/gtest/scenario-test.cc
    test/gtest/checked-parse-test.cc
    test/gtest/hash-mix-test.cc
    test/gtest/doc-listings-test.cc
    test/gtest/parallel-plan-test.cc
    test/gtest/nccl-model-test.cc
    test/gtest/training-step-test.cc
    # --- scheduling ---
    test/gtest/cluster-model-test.cc
    test/gtest/shared-link-timeline-test.cc
    test/gtest/dag-max-k-cut-test.cc
    test/gtest/crux-scheduler-test.cc
    test/gtest/sincronia-scheduler-test.cc
    test/gtest/varys-scheduler-test.cc
    test/gtest/taccl-scheduler-test.cc
    test/gtest/cassini-scheduler-test.cc
    test/gtest/flow-evaluator-test.cc
    test/gtest/water-filling-test.cc
    test/gtest/sample-statistics-test.cc
    test/gtest/optimal-scheduler-test.cc
    test/gtest/cluster-topology-test.cc
    test/gtest/gpu-placement-test.cc
    test/gtest/scheduler-test-util.cc
    test/gtest/user-scheduler-test.cc
    # --- trace ---
    test/gtest/lingjun-trace-test.cc
    test/gtest/lingjun-trace-generator-test.cc
    test/gtest/model-mapping-test.cc
)

# Example programs: examples/<name>.cc
set(CRUX_EXAMPLES
    crux-minimal
    crux-experiment
    crux-microbenchmark
    lingjun-trace-stats
    crux-trace-run
    user-scheduler
)

# Benchmark programs: bench/<name>.cc
set(CRUX_BENCH_PROGRAMS
    fabric-bench
    cluster-decision-bench
    timeline-accuracy-bench
)
