#!/usr/bin/env bash
# Bad input to the crux-experiment program: each case must exit with status 1, print exactly one
# line on stderr that names the file/field, and create nothing in the output directory.
# Usage: check-cli-errors.sh <crux-experiment binary> <module root>
set -u
bin=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
good="$root/scenarios/sec22-gpt-bert.json"

# make_variant <name> <python expression editing dict d>
make_variant() {
  python3 - "$good" "$work/$1.json" "$work/out-$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["outputDir"] = sys.argv[3]
exec(sys.argv[4])
json.dump(d, open(sys.argv[2], "w"))
PY
}

# expect <name> <expected substring> <args...>: one line (expect_in for another program or
# another number of lines: expect_in <program> <lines> <name> <substring> <args...>)
expect() {
  expect_in "$bin" 1 "$@"
}
expect_in() {
  local prog=$1 nlines=$2 name=$3 want=$4
  shift 4
  "$prog" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/$name.err")
  if [ "$rc" -ne 1 ]; then
    echo "FAIL $name: exit status $rc, expected 1"; cat "$work/$name.err"; fails=$((fails + 1))
  elif [ "$lines" -ne "$nlines" ]; then
    echo "FAIL $name: $lines lines on stderr, expected $nlines:"; cat "$work/$name.err"; fails=$((fails + 1))
  elif [ "$(grep -c "^$(basename "$prog"): error: " "$work/$name.err")" -ne "$nlines" ]; then
    echo "FAIL $name: a line is not '$(basename "$prog"): error: ...':"; cat "$work/$name.err"; fails=$((fails + 1))
  elif ! grep -qF -- "$want" "$work/$name.err"; then
    echo "FAIL $name: stderr lacks '$want':"; cat "$work/$name.err"; fails=$((fails + 1))
  elif [ -e "$work/out-$name" ]; then
    echo "FAIL $name: output directory was created"; fails=$((fails + 1))
  else
    echo "ok   $name: $(cat "$work/$name.err")"
  fi
}

make_variant model 'd["jobs"][0]["model"] = "gpt-17"'
# found by a breaker helper: a Chakra job's "overlap" was silently ignored
make_variant chakra-overlap 'd["jobs"][0] = {"name": "ring", "chakra": "'"$root"'/test/data/chakra-et/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce", "hosts": [0, 1, 2, 3, 4, 5, 6, 7], "gpusPerHost": 1, "iterations": 4, "overlap": {"buckets": 4}}'
expect chakra-overlap "jobs[0].overlap: a Chakra trace job has no overlap fields" --scenario="$work/chakra-overlap.json"
# found by a breaker helper: a NUL in a string cut the message that named it
make_variant nul-model 'd["jobs"][0]["model"] = "gpt\u0000x"'
expect nul-model "jobs[0].model: must not contain control characters, got 'gpt\x00x'" --scenario="$work/nul-model.json"
expect model "jobs[0].model: unknown model 'gpt-17'" --scenario="$work/model.json"
make_variant sched 'd["scheduler"] = "fifo"'
expect sched "scheduler: unknown scheduler 'fifo'" --scenario="$work/sched.json"
make_variant gpus 'd["jobs"][1] = {"name": "big", "model": "resnet50", "gpus": 200, "iterations": 2}'
expect gpus "jobs[1].gpus: job asks for 200 GPUs" --scenario="$work/gpus.json"
make_variant levels 'd["priorityLevels"] = 0'
expect levels "priorityLevels: must be 1..8" --scenario="$work/levels.json"
make_variant levels-cli 'pass'
expect levels-cli "priorityLevels: must be 1..8" --scenario="$work/levels-cli.json" --priorityLevels=0
make_variant seed-cli 'pass'
expect seed-cli "--seed: '-1' is not a non-negative integer" --scenario="$work/seed-cli.json" --seed=-1
make_variant stop-cli 'pass'
expect stop-cli "--stopTime: must be a positive number of seconds" --scenario="$work/stop-cli.json" --stopTime=-1
make_variant modes 'pass'
expect modes "--modes: scheduler: unknown scheduler 'nope'" --scenario="$work/modes.json" --modes=alone,nope
make_variant modes-empty 'pass'
expect modes-empty "--modes: empty item in 'alone,,ecmp'" --scenario="$work/modes-empty.json" --modes=alone,,ecmp
printf '{"name": "x", "jobs": [' >"$work/malformed.json"
expect malformed "$work/malformed.json: malformed JSON" --scenario="$work/malformed.json"
expect missing "$work/none.json: cannot open scenario file" --scenario="$work/none.json"
make_variant unknown-key 'd["topology"]["speed"] = 1'
expect unknown-key "topology.speed: unknown key" --scenario="$work/unknown-key.json"
# parallelism plans (sec22: job 0 = gpt on 8 hosts x 8 GPUs)
make_variant plan-product 'd["jobs"][0]["parallelism"] = {"tp": 8, "pp": 2, "dp": 2}'
expect plan-product "jobs[0].parallelism: tp x pp x dp = 8 x 2 x 2 = 32, but the job has 64 GPUs" --scenario="$work/plan-product.json"
make_variant plan-tp 'd["jobs"][0]["parallelism"] = {"tp": 3}'
expect plan-tp "jobs[0].parallelism.tp: tp = 3 neither divides the job's 8 GPUs per host" --scenario="$work/plan-tp.json"
make_variant plan-pp 'd["jobs"][0]["parallelism"] = {"tp": 1, "pp": 32}'
expect plan-pp "jobs[0].parallelism.pp: pp = 32 is larger than the model's 24 layers" --scenario="$work/plan-pp.json"
make_variant plan-ep-experts 'd["jobs"][0]["model"] = "mixtral-8x7b"; d["jobs"][0]["parallelism"] = {"ep": 3}'
expect plan-ep-experts "jobs[0].parallelism.ep: ep = 3 does not divide the model's 8 experts" --scenario="$work/plan-ep-experts.json"
make_variant plan-ep-dp 'd["jobs"][0]["model"] = "mixtral-8x7b"; d["jobs"][0]["parallelism"] = {"pp": 32, "ep": 4, "dp": 2}'
expect plan-ep-dp "jobs[0].parallelism.ep: ep = 4 does not divide dp = 2" --scenario="$work/plan-ep-dp.json"
make_variant plan-algo 'd["jobs"][1]["collectives"] = {"allReduce": "butterfly"}'
expect plan-algo "jobs[1].collectives.allReduce: unknown algorithm 'butterfly'" --scenario="$work/plan-algo.json"
# training steps as a paper gives them (issue 28): gpt on 64 GPUs, TP 8 -> dp 8
make_variant step-mbs 'd["jobs"][0].update({"globalBatch": 100, "microBatchSize": 3, "parallelism": {"tp": 8}})'
expect step-mbs "jobs[0].microBatchSize: globalBatch 100 is not a multiple of microBatchSize x dp = 3 x 8 = 24" --scenario="$work/step-mbs.json"
make_variant step-gpu 'd["jobs"][0]["gpu"] = "v100"'
expect step-gpu "jobs[0].gpu: unknown GPU 'v100' (known: a100-40gb, a100-80gb, h100-sxm, h200-sxm)" --scenario="$work/step-gpu.json"
make_variant step-vs 'd["jobs"][0]["parallelism"] = {"tp": 8, "pp": 2, "virtualStages": 5}'
expect step-vs "jobs[0].parallelism.virtualStages: v = 5 does not divide the 12 layers per stage (24 layers / pp 2)" --scenario="$work/step-vs.json"
make_variant step-recompute 'd["jobs"][0]["recompute"] = "sometimes"'
expect step-recompute "jobs[0].recompute: unknown value 'sometimes' (known: none, selective, full)" --scenario="$work/step-recompute.json"
make_variant step-fp8 'd["jobs"][0].update({"gpu": "a100-80gb", "precision": "fp8"})'
expect step-fp8 "jobs[0].precision: the NVIDIA A100 SXM 80GB (HBM2e) has no FP8 tensor cores" --scenario="$work/step-fp8.json"
# bounds that keep a typo from exhausting memory or overflowing (bad-input review, stop 24)
make_variant plan-micro 'd["jobs"][0]["parallelism"] = {"microBatches": 1025}'
expect plan-micro "jobs[0].parallelism.microBatches: must be <= 1024, got 1025" --scenario="$work/plan-micro.json"
make_variant buckets 'd["jobs"][0]["overlap"] = {"buckets": 65537}'
expect buckets "jobs[0].overlap.buckets: must be <= 65536, got 65537" --scenario="$work/buckets.json"
make_variant ports 'd["topology"].update({"tors": 1, "aggs": 1, "hostsPerTor": 65535}); d["jobs"] = [{"name": "a", "model": "resnet50", "hosts": [0, 1], "iterations": 2}]'
expect ports "topology: switch t0 would have 65536 ports; a switch has at most 65535" --scenario="$work/ports.json"
make_variant gpus-per-host 'd["jobs"][1] = {"name": "b", "model": "resnet50", "gpus": 16, "gpusPerHost": 16, "iterations": 2}'
expect gpus-per-host "jobs[1].gpusPerHost: asks for 16 GPUs per host but hosts have 8" --scenario="$work/gpus-per-host.json"
make_variant nics-zero 'd["topology"]["nicsPerHost"] = 0'
expect nics-zero "topology.nicsPerHost: must be 1..1024, got 0" --scenario="$work/nics-zero.json"
make_variant name-comma 'd["jobs"][1]["name"] = "bert,2"'
expect name-comma "jobs[1].name: must not contain commas, quotes or control characters" --scenario="$work/name-comma.json"
make_variant plan-a2a 'd["jobs"][1]["collectives"] = {"allToAll": "bruck"}'
expect plan-a2a "jobs[1].collectives.allToAll: unknown algorithm 'bruck'" --scenario="$work/plan-a2a.json"
make_variant plan-channels 'd["jobs"][1]["collectives"] = {"channels": 65}'
expect plan-channels "jobs[1].collectives.channels: must be 1..64 (NCCL's MAXCHANNELS; omit it for NCCL's default)" --scenario="$work/plan-channels.json"
make_variant plan-protocol 'd["jobs"][1]["collectives"] = {"protocol": "ll64"}'
expect plan-protocol "jobs[1].collectives.protocol: unknown protocol 'll64' (known: auto, simple, ll, ll128)" --scenario="$work/plan-protocol.json"
make_variant plan-zero 'd["jobs"][0]["parallelism"] = {"dp": 0}'
expect plan-zero "jobs[0].parallelism.dp: must be >= 1" --scenario="$work/plan-zero.json"
# Chakra execution traces (job 1 replaced by a trace job on hosts 4, 5, 10, 11): the real 4-rank
# all-reduce microbenchmark, damaged copies of it, and the bad traces test/data/chakra-et/bad/
# (written by ChakraTrace::WriteRank, checked by the crux-chakra suite)
et="$root/test/data/chakra-et"
micro="$et/microbenchmarks/all_reduce/4npus_1MB/all_reduce"
# chakra_variant <name> <prefix> <hosts as a JSON list>
chakra_variant() {
  make_variant "$1" "d['jobs'][1] = {'name': 'et', 'chakra': '$2', 'hosts': $3, 'gpusPerHost': 1}"
}
copy_micro() {
  for r in 0 1 2 3; do cp "$micro.$r.et" "$work/$1.$r.et"; done
}
copy_micro trunc
truncate -s -5 "$work/trunc.2.et"
chakra_variant et-trunc "$work/trunc" "[4, 5, 10, 11]"
expect et-trunc "jobs[1].chakra: $work/trunc.2.et: message 1 (the first node) at byte 8 needs 74 bytes, the file has 69 left (truncated file" --scenario="$work/et-trunc.json"
copy_micro text
echo '{"not": "a Chakra trace"}' >"$work/text.1.et"
chakra_variant et-text "$work/text" "[4, 5, 10, 11]"
expect et-text "jobs[1].chakra: $work/text.1.et: GlobalMetadata (the first message)" --scenario="$work/et-text.json"
copy_micro missing
rm "$work/missing.3.et"
chakra_variant et-missing "$work/missing" "[4, 5, 10, 11]"
expect et-missing "jobs[1].chakra: $work/missing.3.et: missing rank file (the job has 4 GPUs" --scenario="$work/et-missing.json"
chakra_variant et-fewer-gpus "$micro" "[4, 5]"
expect et-fewer-gpus "jobs[1].chakra: $micro.2.et: the trace has more ranks than the job's 2 GPUs" --scenario="$work/et-fewer-gpus.json"
make_variant et-more-gpus "d['jobs'][1] = {'name': 'et', 'chakra': '$micro', 'hosts': [4, 5, 10, 11], 'gpusPerHost': 2}"
expect et-more-gpus "jobs[1].chakra: $micro.4.et: missing rank file (the job has 8 GPUs" --scenario="$work/et-more-gpus.json"
chakra_variant et-dep "$et/bad/dep" "[4, 5]"
expect et-dep "jobs[1].chakra: $et/bad/dep.0.et: node 2 'comp2': depends on node 7, which does not exist" --scenario="$work/et-dep.json"
chakra_variant et-cycle "$et/bad/cycle" "[4, 5]"
expect et-cycle "jobs[1].chakra: $et/bad/cycle.0.et: node 2 'comp2': dependency cycle (rank 0 node 2 -> rank 0 node 3" --scenario="$work/et-cycle.json"
chakra_variant et-deadlock "$et/bad/deadlock" "[4, 5]"
expect et-deadlock "jobs[1].chakra: $et/bad/deadlock.0.et: node 2 'send2': dependency cycle (rank 0 node 2 -> rank 1 node 1" --scenario="$work/et-deadlock.json"
chakra_variant et-unmatched "$et/bad/unmatched" "[4, 5]"
expect et-unmatched "jobs[1].chakra: $et/bad/unmatched.0.et: node 2 'send2': send to rank 1 (tag 0) has no matching receive" --scenario="$work/et-unmatched.json"
make_variant et-model "d['jobs'][1]['chakra'] = '$micro'"
expect et-model "jobs[1].model: give either \"model\" or \"chakra\", not both" --scenario="$work/et-model.json"

make_variant cc 'd["congestionControl"] = "cubic"'
expect cc "congestionControl: unknown value 'cubic' (known: dcqcn, hpcc, none)" --scenario="$work/cc.json"
make_variant cc-cli 'pass'
expect cc-cli "congestionControl: unknown value 'reno'" --scenario="$work/cc-cli.json" --congestionControl=reno
# checked before any mode runs (it was refused only after ecmp had been simulated)
make_variant optimal 'pass'
expect optimal "scheduler 'optimal': optimal scheduler: search space too large" --scenario="$work/optimal.json" --modes=ecmp,optimal
# issue 15's inputs
make_variant delay 'd["topology"]["linkDelay"] = "1 us"'
expect delay "topology.linkDelay: '1 us' is not a time" --scenario="$work/delay.json"
make_variant rate 'd["topology"]["hostLinkRate"] = "100 Gbps"'
expect rate "topology.hostLinkRate: '100 Gbps' is not a data rate" --scenario="$work/rate.json"
make_variant iters 'd["jobs"][0]["iterations"] = 4294967299'
expect iters "jobs[0].iterations: 4294967299 is out of range" --scenario="$work/iters.json"
make_variant seed-abc 'pass'
expect seed-abc "--seed: 'abc' is not a non-negative integer" --scenario="$work/seed-abc.json" --seed=abc
make_variant foo 'pass'
expect foo "--foo: unknown option" --scenario="$work/foo.json" --foo=1
make_variant modes-none 'pass'
expect progress "--progress: -1 is out of range (must be >= 0)" --scenario="$work/modes-none.json" --progress=-1
expect modes-none "--modes: empty value" --scenario="$work/modes-none.json" --modes=
# topology <name> <expected substring> <topology fields as a Python dict literal>: a scenario
# whose topology gets the fields, rejected with the message
topology() {
  make_variant "$1" "d[\"topology\"].update($3)"
  expect "$1" "$2" --scenario="$work/$1.json"
}
# three-tier fields: only for that type, and consistent counts
topology tt-on-clos "topology.cores: only for topology types \"three-tier\" and \"double-sided\"" '{"cores": 4}'
topology tt-groups "topology.torsPerGroup: must divide topology.tors (4), got 3" \
  '{"type": "three-tier", "tors": 4, "torsPerGroup": 3, "cores": 4}'
topology tt-cores "topology.cores: must be a positive multiple of the aggregation switches per group" \
  '{"type": "three-tier", "tors": 4, "torsPerGroup": 2, "aggs": 4, "cores": 3}'
topology tt-rotated "topology.wiring: a three-tier topology cables every NIC of a host to its ToR" \
  '{"type": "three-tier", "tors": 4, "torsPerGroup": 2, "aggs": 4, "cores": 4, "wiring": "rotated"}'
# double-sided fields: ToRs pair up, counts consistent, no three-tier groups
topology ds-odd "topology.tors: must be even and > 0 (a double-sided topology pairs its ToRs), got 3" \
  '{"type": "double-sided", "tors": 3, "aggs": 3, "cores": 2}'
topology ds-aggs "topology.aggs: must be a positive multiple of the ToR pairs (tors / 2 = 2), got 3" \
  '{"type": "double-sided", "tors": 4, "aggs": 3, "cores": 4}'
topology ds-cores "topology.cores: must be a positive multiple of the aggregation switches per ToR pair" \
  '{"type": "double-sided", "tors": 4, "aggs": 4, "cores": 3}'
topology ds-nocores "topology.cores: must be a positive multiple of the aggregation switches per ToR pair (aggs / (tors / 2) = 2) and <= 65536, got 0" \
  '{"type": "double-sided", "tors": 4, "aggs": 4}'
topology ds-groups "topology.torsPerGroup: only for topology type \"three-tier\" (type is \"double-sided\")" \
  '{"type": "double-sided", "tors": 4, "aggs": 4, "cores": 4, "torsPerGroup": 2}'
topology ds-rotated "topology.wiring: a double-sided topology cables port p of every NIC to ToR p of the host's pair" \
  '{"type": "double-sided", "tors": 4, "aggs": 4, "cores": 4, "wiring": "rotated"}'
topology ds-rate "topology.coreLinkRate: 'fast' is not a data rate" \
  '{"type": "double-sided", "tors": 4, "aggs": 4, "cores": 4, "coreLinkRate": "fast"}'
make_variant cables 'd["topology"].update({"tors": 65536, "aggs": 65536, "hostsPerTor": 1})'
expect cables "topology: ClosConfig: 4295032832 cables (hosts x nicsPerHost + tors x aggs x linksPerTorAgg) exceed" --scenario="$work/cables.json" --dryRun
# found during the simulation (when the first frame reaches a switch): still one line, exit 1,
# naming the attributes that decide the headroom
make_variant headroom 'd["topology"]["switchBuffer"] = "100KB"'
expect headroom "its reserved buffer does not fit in ns3::SwitchMmu::BufferSize 100000 bytes (a scenario's topology.switchBuffer): PFC headroom 2958960 bytes = 8 ports x 8 lossless classes" --scenario="$work/headroom.json" --modes=ecmp
expect headroom-why "ns3::QbbNetDevice::Mtu 4200 + 18) + a 64-byte PAUSE + 41250 bytes at 100 Gbit/s during 2 x 1000 ns link delay + 1000 ns ns3::SwitchMmu::PfcResponseTime + 300 ns ns3::CruxSwitch::ForwardingLatency), plus the control-class pool 2048 bytes (8 ports x ns3::SwitchMmu::ControlReserveBytes 256)" --scenario="$work/headroom.json" --modes=ecmp

# issue 29: inputs that were accepted, or refused without naming the field / option
make_variant dup-key 'pass'
sed -i 's/^{/{"seed": 7, /' "$work/dup-key.json"
expect dup-key "dup-key.json: seed: given twice in one object" --scenario="$work/dup-key.json"
make_variant big-number 'd["jobs"][0]["computeTime"] = "@BIG@"'
sed -i 's/"@BIG@"/1e400/' "$work/big-number.json"
expect big-number "big-number.json: jobs[0].computeTime: a number beyond the range of a double" --scenario="$work/big-number.json"
echo '[]' >"$work/top-array.json"
expect top-array "top-array.json: the top level: must be a JSON object, got an array" --scenario="$work/top-array.json"
make_variant idle-job 'd["jobs"][1].update({"computeTime": 0, "gradientBytes": 0})'
expect idle-job "jobs[1].computeTime: 0 with gradientBytes 0 leaves an iteration without compute or communication" --scenario="$work/idle-job.json"
# below one ns-3 time step and one byte: an iteration of no time too (it hung the run)
make_variant tiny-job 'd["jobs"][0].update({"computeTime": 1e-10, "gradientBytes": 0.4})'
expect tiny-job "jobs[0].computeTime: 1e-10 with gradientBytes 0.4 leaves an iteration without compute or communication" --scenario="$work/tiny-job.json"
make_variant late-start 'd["jobs"][0]["start"] = 200'
expect late-start "jobs[0].start: 200 s is not before stopTime 120 s: the job would never run" --scenario="$work/late-start.json"
# found by a breaker helper: jobs that never run together had an empty measurement window and
# gave "no iteration in the window" and a utilization of 0 for every run, exit 0
# found by a new-user helper: the error gave no way out
make_variant gpus-split 'd["jobs"][1] = {"name": "bert", "model": "bert-large", "gpus": 12, "iterations": 3, "background": True}'
expect gpus-split "jobs[1].gpus: 12 GPUs cannot be split into equal groups of 8 per host (hosts have 8 GPUs; a job has the same GPUs on each of its hosts: give a gpus that is a multiple of 8, or jobs[1].gpusPerHost that divides it)" --scenario="$work/gpus-split.json" --fabric=flow
make_variant no-window 'd["jobs"][1]["start"] = 100'
# a stall on a lossy fabric names the drops the watchdog cannot see (breaker finding: it said
# "a lost link or a PFC deadlock" with PFC off)
make_variant nopfc 'o = d["outputDir"]; d.clear(); d.update(json.load(open("'"$root"'/scenarios/smoke.json"))); d["outputDir"] = o; d["topology"].update({"pfc": False, "switchBuffer": "1MiB"})'
expect nopfc "NAK rewinds; a lost link or dropped frames; attribute ns3::RdmaNic::StallTimeout); the fabric had dropped" --scenario="$work/nopfc.json" --modes=ecmp --congestionControl=none
# a measured job with no iteration after its warm-up (breaker finding: a table of zeros, exit 0)
make_variant warmup-only 'd["jobs"][0]["iterations"] = 1'
expect warmup-only "jobs[0].iterations: must be more than warmupIterations (1, never measured), got 1: raise it, lower warmupIterations, or mark the job background" --scenario="$work/warmup-only.json"
make_variant warmup-more 'd["warmupIterations"] = 5'
expect warmup-more "jobs[0].iterations: must be more than warmupIterations (5, never measured), got 4: raise it, lower warmupIterations, or mark the job background" --scenario="$work/warmup-more.json"
expect no-window "run ecmp: no measurement window: job 'bert' starts at 100.0 s (jobs[1].start), when job 'gpt' ended its iterations at 6.130 s" --scenario="$work/no-window.json" --fabric=flow
make_variant tiny-stop 'd["stopTime"] = 1e-9'
expect tiny-stop "stopTime: 1e-09 s ends before any measured job can finish an iteration (the earliest, jobs[0] 'gpt', starts at 0 s and computes 1.28 s per iteration)" --scenario="$work/tiny-stop.json"
make_variant modes-dup 'pass'
expect modes-dup "--modes: 'alone' given twice" --scenario="$work/modes-dup.json" --modes=alone,alone
make_variant outdir 'pass'
touch "$work/not-a-dir"
expect outdir "crux-experiment: error: --outputDir: cannot create" --scenario="$work/outdir.json" --outputDir="$work/not-a-dir/x" --dryRun
copy_micro isdir
rm "$work/isdir.1.et"; mkdir "$work/isdir.1.et"
chakra_variant et-dir "$work/isdir" "[4, 5, 10, 11]"
expect et-dir "jobs[1].chakra: $work/isdir.1.et: is a directory, not a Chakra rank file" --scenario="$work/et-dir.json"
copy_micro fifo
rm "$work/fifo.2.et"; mkfifo "$work/fifo.2.et"
chakra_variant et-fifo "$work/fifo" "[4, 5, 10, 11]"
expect et-fifo "jobs[1].chakra: $work/fifo.2.et: is not a regular file" --scenario="$work/et-fifo.json"
# a count beyond its type names the field's own range (it named 0..1000 for 1..100)
# found by a breaker helper: attribute values that aborted the program (exit 134), one at
# device construction, one in the middle of the simulation
expect dscp-to-tc "--ns3::QbbNetDevice::DscpToTc: '0-63:9': bad entry \"0-63:9\" (expected lo-hi:tc or dscp:tc" --scenario="$root/scenarios/smoke.json" --ns3::QbbNetDevice::DscpToTc=0-63:9 --outputDir="$work/out-dscp-to-tc"
expect dwrr-quanta "--ns3::QbbNetDevice::DwrrQuanta: '0': bad quantum \"0\"" --scenario="$root/scenarios/smoke.json" --ns3::QbbNetDevice::DwrrQuanta=0 --outputDir="$work/out-dwrr-quanta"
expect control-dscp "--ns3::QbbNetDevice::ControlDscp: DSCP 0 is the DSCP of priority level 0" --scenario="$root/scenarios/smoke.json" --ns3::QbbNetDevice::ControlDscp=0 --outputDir="$work/out-control-dscp"
expect peak-flops "--ns3::GpuIntensityTracker::PeakFlops: '0' is not a valid DoubleValue" --scenario="$root/scenarios/smoke.json" --ns3::GpuIntensityTracker::PeakFlops=0 --outputDir="$work/out-peak-flops"
# ns-3's MRG32k3a ends the program for a seed at or above its modulus m2 = 4294944443
expect seed-m2 "seed: must be 1..4294944442" --scenario="$root/scenarios/smoke.json" --seed=4294944443 --dryRun --outputDir="$work/out-seed-m2"
expect seeds-huge "--seeds: 4294967296 is out of range (1..100)" --scenario="$root/scenarios/smoke.json" --seeds=4294967296 --dryRun --outputDir="$work/out-seeds-huge"
# a result file that is a directory is refused before the simulations (it failed after them)
mkdir -p "$work/exp-file-dir/jobs.csv"
expect exp-file-dir "--outputDir: '$work/exp-file-dir/jobs.csv' (a result file) exists and is a directory" --scenario="$root/scenarios/smoke.json" --fabric=flow --dryRun --outputDir="$work/exp-file-dir"
# the scenario file itself: a device, a FIFO, a directory or a huge file is refused before it is
# read (/dev/zero used to be read until the memory ran out, a FIFO to block)
expect scenario-zero "/dev/zero: is not a regular file (a FIFO, device or socket, or a link to one), not a scenario file" --scenario=/dev/zero --dryRun --outputDir="$work/out-scenario-zero"
mkfifo "$work/scenario.fifo"
expect scenario-fifo "$work/scenario.fifo: is not a regular file" --scenario="$work/scenario.fifo" --dryRun --outputDir="$work/out-scenario-fifo"
expect scenario-dir "$work: is a directory, not a scenario file" --scenario="$work" --dryRun --outputDir="$work/out-scenario-dir"
truncate -s 100M "$work/huge.json"
expect scenario-huge "huge.json: 100 MiB, larger than the 64 MiB a scenario file may have" --scenario="$work/huge.json" --dryRun --outputDir="$work/out-scenario-huge"
rm -f "$work/huge.json"
copy_micro zero
rm "$work/zero.3.et"; ln -s /dev/zero "$work/zero.3.et"
chakra_variant et-zero "$work/zero" "[4, 5, 10, 11]"
expect et-zero "jobs[1].chakra: $work/zero.3.et: is not a regular file" --scenario="$work/et-zero.json"
chakra_variant et-huge "$et/bad/huge" "[4, 5]"
expect et-huge "jobs[1].chakra: $et/bad/huge.0.et: node 1 'comp1': duration_micros 9223372036854775808 is" --scenario="$work/et-huge.json"
chakra_variant et-meta "$et/bad/meta" "[4, 5]"
expect et-meta "jobs[1].chakra: $et/bad/meta.0.et: no compute time and no communication" --scenario="$work/et-meta.json"
# HPCC's INT stack does not fit the devices' MTU: one line naming the attributes (was an abort)
make_variant hpcc-mtu 'd["congestionControl"] = "hpcc"'
expect hpcc-mtu "a full data packet is 4192 bytes (ns3::RdmaNic::Mtu 4096 + 44 bytes IPv4/UDP/BTH/ICRC + the 52-byte INT stack ns3::HpccCongestionControl adds to every data packet), more than its device's ns3::QbbNetDevice::Mtu 4150" --scenario="$work/hpcc-mtu.json" --modes=ecmp --ns3::QbbNetDevice::Mtu=4150
# a peer that never posts its sends (fault injection: rank 1 of every job hangs): the runner's
# watchdog ends the run with one line; without it, the end of the run names every stuck job
make_variant silent 'pass'
expect silent "no message delivered for 0.01 s (ns3::CommDagRunner::StallTimeout): the communication graph did not finish" --scenario="$work/silent.json" --modes=ecmp --ns3::CommDagRunner::HungRank=1 --ns3::CommDagRunner::StallTimeout=10ms
make_variant silent-end 'd["stopTime"] = 2'
expect_in "$bin" 2 silent-end "never posted: rank 1 hangs from 0.0000 ms (ns3::CommDagRunner::HungRank)" --scenario="$work/silent-end.json" --modes=ecmp --ns3::CommDagRunner::HungRank=1 --ns3::CommDagRunner::StallTimeout=0s
# the same with two runs in child processes (--jobs=2; the ECMP mixes of two seeds are one phase
# of runs, each in its child): the failing run's lines, each prefixed with the run's name
make_variant silent-par 'd["stopTime"] = 2; d["profileIterations"] = 0'
expect_in "$bin" 2 silent-par "crux-experiment: error: run ecmp@" --scenario="$work/silent-par.json" --modes=ecmp --seeds=2 --jobs=2 --quiet --ns3::CommDagRunner::HungRank=1 --ns3::CommDagRunner::StallTimeout=0s
# the examples: a forced stall and configuration errors are one line and exit 1, not an abort
minimal="$(dirname "$bin")/crux-minimal"
if [ -x "$minimal" ]; then
  expect_in "$minimal" 1 minimal-stall "crux-minimal: error: RdmaNic watchdog: job 1 flow " --ns3::RdmaNic::StallTimeout=1us
  expect_in "$minimal" 1 minimal-hang "crux-minimal: error: CommDagRunner watchdog: job 1: no message delivered for 0.001 s" --ns3::CommDagRunner::HungRank=0 --ns3::CommDagRunner::StallTimeout=1ms
  expect_in "$minimal" 1 minimal-stuck "crux-minimal: error: job 1, iteration 0: the communication graph did not finish" --ns3::CommDagRunner::HungRank=0 --ns3::CommDagRunner::StallTimeout=0s
  expect_in "$minimal" 1 minimal-mtu "more than its device's ns3::QbbNetDevice::Mtu 4150" --ns3::RdmaNic::CongestionControl=ns3::HpccCongestionControl --ns3::QbbNetDevice::Mtu=4150
  expect_in "$minimal" 1 minimal-buffer "does not fit in ns3::SwitchMmu::BufferSize 100000 bytes" --ns3::SwitchMmu::BufferSize=100000
else
  echo "FAIL crux-minimal: not built next to $bin"; fails=$((fails + 1))
fi
mbench="$(dirname "$bin")/crux-microbenchmark"
if [ -x "$mbench" ]; then
  expect_in "$mbench" 1 micro-slots "crux-microbenchmark: error: --slotsPerHost: must divide the hosts' 8 GPUs (1, 2, 4 or 8), got 3" --slotsPerHost=3 --cases=1 --output="$work/out-micro-slots/m.csv"
  # found by a breaker helper: below one iteration every rate was 0 and every ratio 0/0 = "100 %"
  expect_in "$mbench" 1 micro-horizon "crux-microbenchmark: error: --horizonIterations must be in [1, 1000]" --horizonIterations=0.1 --cases=1 --output="$work/out-micro-horizon/m.csv"
fi
trace="$(dirname "$bin")/crux-trace-run"
if [ -x "$trace" ]; then
  expect_in "$trace" 1 trace-clos-topo "--closTors: applies to --topology=clos only (got --topology=double-sided)" --topology=double-sided --closTors=10 --dryRun --outputDir="$work/out-trace-clos-topo"
  expect_in "$trace" 1 trace-weak-bound "--weakLinkBound: must be in [0, 1) (0 = no cut)" --weakLinkBound=1 --days=0.05 --dryRun --outputDir="$work/out-trace-weak-bound"
  expect_in "$trace" 1 trace-weak-rule "--weakLinkRule: 'expected' is not bound or overlap" --weakLinkRule=expected --days=0.05 --dryRun --outputDir="$work/out-trace-weak-rule"
  expect_in "$trace" 1 trace-bad-topo "--topology: 'bogus' is not clos, double-sided or lingjun" --topology=bogus --closTors=10 --dryRun --outputDir="$work/out-trace-bad-topo"
  expect_in "$trace" 1 trace-cables "--closTors / --closAggs / --closHosts: ClosConfig:" --closTors=65536 --closAggs=4096 --closHosts=65536 --dryRun --outputDir="$work/out-trace-cables"
  # found by a breaker helper: more ToRs than hosts left ToRs without a host, silently
  expect_in "$trace" 1 trace-empty-tors "ClosConfig.numHosts (100) is fewer than the ToRs (200): 100 would have no host" --closTors=200 --closHosts=100 --dryRun --outputDir="$work/out-trace-empty-tors"
  # found by a breaker helper: a trace whose jobs all arrive in one minute has the default
  # window [0, 60] s and read 0 utilization for every scheduler without a word (exit 0): a
  # warning now says how much of the jobs' GPU time the window holds
  mkdir -p "$work/one-minute"
  printf 'job_name,model,status,gmt_job_submitted,gmt_job_running,gmt_job_finished,gmt_job_stopped\n' >"$work/one-minute/job.csv"
  printf 'job_name,worker_name,replica_type,host_ip,RES\n' >"$work/one-minute/worker.csv"
  i=0
  for ip in $(tail -n +2 "$root/data/lingjun-2023/topo.csv" | head -8 | cut -d, -f1); do
    j=$([ $i -lt 4 ] && echo jA || echo jB)
    [ $((i % 4)) -eq 0 ] && echo "$j,GPT-13b,Succeeded,2023/7/15 02:00,2023/7/15 02:01,2023/7/15 06:00," >>"$work/one-minute/job.csv"
    echo "$j,$j-worker-$((i % 4)),worker,$ip,\"{\"\"nvidia.com/gpu\"\": \"\"8\"\"}\"" >>"$work/one-minute/worker.csv"
    i=$((i + 1))
  done
  "$trace" --jobCsv="$work/one-minute/job.csv" --workerCsv="$work/one-minute/worker.csv" \
    --topoCsv="$root/data/lingjun-2023/topo.csv" --topology=lingjun --placement=trace \
    --schedulers=ecmp --quiet --outputDir="$work/one-minute/out" >/dev/null 2>"$work/one-minute/err"
  rc=$?
  if [ "$rc" -ne 0 ] || ! grep -q "^crux-trace-run: warning: the window \[0.0, 60.0\] s holds 0.0 % of the jobs' GPU time" "$work/one-minute/err"; then
    echo "FAIL trace-one-minute: exit $rc, no window warning: $(cat "$work/one-minute/err")"; fails=$((fails + 1))
  else
    echo "ok   trace-one-minute: $(grep 'the window' "$work/one-minute/err")"
  fi
  # a window in mid-trace is a cold start: said on stderr, exit 0 (new-user finding); the
  # default window, from the first arrival, has no such line
  "$trace" --days=0.05 --windowStart=30m --dryRun --outputDir="$work/out-cold" >/dev/null 2>"$work/cold.err"
  rc=$?
  "$trace" --days=0.05 --dryRun --outputDir="$work/out-warm" >/dev/null 2>"$work/warm.err"
  # a window start before the first job that runs: nothing left out, no warning (breaker finding)
  "$trace" --closTors=4 --closAggs=2 --closHosts=16 --days=1 --jobsPerDay=40 --windowStart=2000 --windowEnd=3h --dryRun --outputDir="$work/out-warm2" >/dev/null 2>>"$work/warm.err"
  if [ "$rc" -ne 0 ] || ! grep -q "^crux-trace-run: warning: the cluster starts empty at --windowStart (1800 s): [1-9][0-9]* jobs of the trace that arrived before it and ran past it are not run" "$work/cold.err" || grep -q "starts empty" "$work/warm.err"; then
    echo "FAIL trace-cold-start: exit $rc: $(cat "$work/cold.err" "$work/warm.err")"; fails=$((fails + 1))
  else
    echo "ok   trace-cold-start: $(grep 'starts empty' "$work/cold.err")"
  fi
  # found by a breaker helper: each was an abort, a crash, an empty run, a hang or gigabytes
  expect_in "$trace" 1 trace-sim-type "--SimulatorImplementationType: 'ns3::Node' is not an ns-3 type derived from ns3::SimulatorImpl" --SimulatorImplementationType=ns3::Node --days=0.05 --dryRun --outputDir="$work/out-trace-sim-type"
  expect_in "$trace" 1 trace-sched-type "--SchedulerType: 'ns3::Scheduler' is not an ns-3 type derived from ns3::Scheduler" --SchedulerType=ns3::Scheduler --days=0.05 --dryRun --outputDir="$work/out-trace-sched-type"
  expect_in "$trace" 1 trace-drain "--drain: must be at most 1e+09 seconds" --drain=1e50 --days=0.05 --dryRun --outputDir="$work/out-trace-drain"
  expect_in "$trace" 1 trace-window-end "--windowEnd: must be in [0, 1e+09] seconds" --windowEnd=1e50 --days=0.05 --dryRun --outputDir="$work/out-trace-window-end"
  expect_in "$trace" 1 trace-horizon "--horizonIterations: must be in [1, 1000]" --horizonIterations=0.01 --days=0.05 --dryRun --outputDir="$work/out-trace-horizon"
  expect_in "$trace" 1 trace-bins "--binSeconds: 1 s gives 252720 bins over the window (79920 s) and the drain (172800 s); at most 100000" --binSeconds=1 --days=1 --jobsPerDay=50 --dryRun --outputDir="$work/out-trace-bins"
  expect_in "$trace" 1 trace-bin-cells "link-intensity cells; at most 1e+08 (a wider bin, or a shorter window or drain)" --binSeconds=2.5 --days=0.5 --dryRun --outputDir="$work/out-trace-bin-cells"
  expect_in "$trace" 1 trace-bins-drain "3600 s gives 277790 bins over the window (43380 s) and the drain (1e+09 s)" --drain=1e9 --days=0.5 --dryRun --outputDir="$work/out-trace-bins-drain"
  expect_in "$trace" 1 trace-levels-huge "--numLevels: 4294967297 is out of range (1..8)" --numLevels=4294967297 --dryRun --outputDir="$work/out-trace-levels-huge"
  # an empty window names the option that emptied it and the trace's span of arrivals
  expect_in "$trace" 1 trace-window-end "--windowEnd: no job arrives in the window [0, 1) s; the trace's arrivals span" --days=0.05 --windowEnd=1s --dryRun --outputDir="$work/out-trace-window-end"
  expect_in "$trace" 1 trace-window-start "--windowStart: no job arrives in the window [864000, end) s" --days=0.05 --windowStart=10d --dryRun --outputDir="$work/out-trace-window-start"
  expect_in "$trace" 1 trace-lingjun-no-topo "--topoCsv: topology lingjun needs the topo.csv path (the module ships data/lingjun-2023/topo.csv)" --topology=lingjun --dryRun --outputDir="$work/out-trace-lingjun-no-topo"
  expect_in "$trace" 1 trace-generated "--jobsPerDay: x --days gives 1000000 generated jobs; at most 500000" --days=10 --jobsPerDay=1e5 --dryRun --outputDir="$work/out-trace-generated"
  expect_in "$trace" 1 trace-topocsv-clos "--topoCsv: applies to --topology=lingjun or to a trace read with --jobCsv (got --topology=clos)" --topoCsv="$root/data/lingjun-2023/topo.csv" --days=0.05 --dryRun --outputDir="$work/out-trace-topocsv-clos"
  # found by a breaker helper: the hosts a real trace recorded are rows of topo.csv, not hosts
  # of the Clos (they used to be replayed on unrelated Clos hosts)
  printf 'job_name,model,status,gmt_job_submitted,gmt_job_running,gmt_job_finished,gmt_job_stopped\nj,resnet50,Succeeded,2023/7/15 02:01,2023/7/15 02:01,2023/7/15 03:01,\n' > "$work/rec-job.csv"
  printf 'job_name,worker_name,replica_type,host_ip,RES\n' > "$work/rec-worker.csv"
  expect_in "$trace" 1 trace-recorded-clos "--placement: 'trace' replays the hosts job.csv/worker.csv recorded, which are topo.csv's: it needs --topology=lingjun, not 'clos'" --topoCsv="$root/data/lingjun-2023/topo.csv" --jobCsv="$work/rec-job.csv" --workerCsv="$work/rec-worker.csv" --placement=trace --dryRun --outputDir="$work/out-trace-recorded-clos"
  # found by a breaker helper: under mpirun every process ran the whole trace and wrote the
  # same files (crux-experiment refuses it without --mpi too)
  OMPI_COMM_WORLD_SIZE=2 expect_in "$trace" 1 trace-mpirun "mpirun: started with 2 processes: crux-trace-run does not run distributed" --days=0.05 --dryRun --outputDir="$work/out-trace-mpirun"
  # found by a new-user helper: the coarse evaluator's options were ignored under the exact one
  expect_in "$trace" 1 trace-exact-cut "--weakLinkBound: applies to --evaluator=coarse only (got --evaluator=exact)" --evaluator=exact --weakLinkBound=0.5 --days=0.05 --dryRun --outputDir="$work/out-trace-exact-cut"
  # found by a breaker helper: a result file that is a directory used to fail after the run,
  # with other schedulers' results replaced already
  mkdir -p "$work/file-dir/ecmp/summary.json/x"
  expect_in "$trace" 1 trace-file-dir "--outputDir: '$work/file-dir/ecmp/summary.json' (a result file) exists and is a directory" --days=0.05 --schedulers=crux,ecmp --dryRun --outputDir="$work/file-dir"
  if [ "$(find "$work/file-dir" | wc -l)" -ne 4 ]; then
    echo "FAIL trace-file-dir: files were added to the output directory"; fails=$((fails + 1))
  fi
  # a trace file beyond 256 MiB is refused before it is read (a sparse file: no disk used)
  truncate -s 300M "$work/huge-topo.csv"
  expect_in "$trace" 1 trace-huge-file "huge-topo.csv: 300 MiB, larger than the 256 MiB a trace file may have" --topology=lingjun --topoCsv="$work/huge-topo.csv" --dryRun --outputDir="$work/out-trace-huge-file"
  rm -f "$work/huge-topo.csv"
  # a result file that cannot be replaced (immutable: chattr +i, where the file system and the
  # user allow it) puts every file already replaced back: all of the earlier run or nothing
  "$trace" --days=0.05 --schedulers=ecmp,crux --quiet --outputDir="$work/immutable" 2>/dev/null
  if chattr +i "$work/immutable/crux/summary.json" 2>/dev/null; then
    before=$(cat "$work/immutable"/*/* | md5sum)
    "$trace" --days=0.05 --seed=2 --schedulers=ecmp,crux --quiet --outputDir="$work/immutable" 2>"$work/immutable.err"
    rc=$?
    chattr -i "$work/immutable/crux/summary.json"
    if [ "$rc" -ne 1 ] || ! grep -q "^crux-trace-run: error: .*crux/summary.json: cannot replace: Operation not permitted$" "$work/immutable.err"; then
      echo "FAIL trace-immutable: exit $rc"; cat "$work/immutable.err"; fails=$((fails + 1))
    elif [ "$(cat "$work/immutable"/*/* | md5sum)" != "$before" ]; then
      echo "FAIL trace-immutable: files of the earlier run were replaced"; fails=$((fails + 1))
    else
      echo "ok   trace-immutable: $(grep error "$work/immutable.err")"
    fi
  else
    echo "skip trace-immutable: chattr +i not permitted here"
  fi
  # an --outputDir that is a symbolic link to nothing is refused and left in place
  ln -s "$work/nowhere/x" "$work/dangling-link"
  expect_in "$trace" 1 trace-dangling "--outputDir: '$work/dangling-link' is a symbolic link to nothing" --days=0.05 --dryRun --outputDir="$work/dangling-link"
  if [ ! -L "$work/dangling-link" ]; then
    echo "FAIL trace-dangling: the symbolic link was removed"; fails=$((fails + 1))
  fi
  # ... also where it is a directory on the way to --outputDir (here a loop of two links)
  ln -s "$work/loop-b" "$work/loop-a"; ln -s "$work/loop-a" "$work/loop-b"
  expect_in "$trace" 1 trace-loop-parent "--outputDir: cannot create '$work/loop-a/x/y': '$work/loop-a' is a symbolic link to nothing (missing target or a loop)" --days=0.05 --dryRun --outputDir="$work/loop-a/x/y"
  # NS_ATTRIBUTE_DEFAULT's value is checked before ns-3 would abort on it (also without Crux),
  # and it cannot silently override a --threads (ns-3 applies it over the option)
  NS_ATTRIBUTE_DEFAULT='ns3::CruxIntensityPriorities::Threads=abc' expect_in "$trace" 1 trace-env-threads "NS_ATTRIBUTE_DEFAULT: ns3::CruxIntensityPriorities::Threads must be a whole number in [1, 256] (got 'abc')" --schedulers=ecmp --days=0.05 --dryRun --outputDir="$work/out-trace-env-threads"
  NS_ATTRIBUTE_DEFAULT='ns3::CruxIntensityPriorities::Threads=3' expect_in "$trace" 1 trace-env-threads-option "--threads: conflicts with ns3::CruxIntensityPriorities::Threads in NS_ATTRIBUTE_DEFAULT" --threads=2 --days=0.05 --dryRun --outputDir="$work/out-trace-env-threads-option"
  # Not bad input: the threads of a scheduler run (--threads, else the ns-3 attribute, else
  # the cores divided by the runs at a time), as the dry run reports them.
  threads_of() { "$trace" --days=0.05 --dryRun --outputDir="$work/out-threads" "$@" 2>/dev/null | sed -n 's/.*GPUs (clos), \([0-9]*\) thread.*/\1/p'; }
  cores=$(nproc)
  for c in "3|--threads=3" "5|--ns3::CruxIntensityPriorities::Threads=5" "5|--threads=0 --ns3::CruxIntensityPriorities::Threads=5" "2|--threads=2 --ns3::CruxIntensityPriorities::Threads=5" "$cores|--jobs=1 --schedulers=crux,ecmp" "$(( cores / 2 > 0 ? cores / 2 : 1 ))|--jobs=2 --schedulers=crux,ecmp"; do
    want=${c%%|*}
    # shellcheck disable=SC2086
    got=$(threads_of ${c#*|})
    if [ "$got" = "$want" ]; then
      echo "ok   trace threads ${c#*|}: $got"
    else
      echo "FAIL trace threads ${c#*|}: $got thread(s), expected $want"; fails=$((fails + 1))
    fi
  done
  got=$(NS_ATTRIBUTE_DEFAULT='ns3::CruxIntensityPriorities::Threads=3' threads_of --jobs=1)
  if [ "$got" = 3 ]; then
    echo "ok   trace threads from NS_ATTRIBUTE_DEFAULT: $got"
  else
    echo "FAIL trace threads from NS_ATTRIBUTE_DEFAULT: $got thread(s), expected 3"; fails=$((fails + 1))
  fi
else
  echo "FAIL crux-trace-run: not built next to $bin"; fails=$((fails + 1))
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails bad-input case(s) failed"
  exit 1
fi
echo "all bad-input cases give one clear error, exit status 1, nothing written"
