# A sweep written in Python (scripts/sweep.py reads the dict SWEEP): a load study of the
# trace-driven runs. One day of the generated trace on the 2,000-GPU Clos, random placement,
# 25 Gbit/s ToR-aggregation links, the arrival rate at 1x, 2x and 3x the real trace's
# (5,180 rows over 14 days, about 370 jobs per day; crux-trace-run --jobsPerDay), ECMP and Crux,
# three seeds. 9 invocations, 18 table rows. Run it with
#   build/venv/bin/python scripts/sweep.py sweeps/trace-load.py --out=trace-load
REAL_JOBS_PER_DAY = 5180 / 14  # the real Lingjun trace (doc/crux.rst, "Inputs and options")

SWEEP = {
    "name": "trace-load",
    "runs": [{
        "name": "load",
        "program": "crux-trace-run",
        "options": {"topology": "clos", "placement": "random", "days": 1,
                    "torAggRate": "25Gbps", "workModel": "duration",
                    "schedulers": ["ecmp", "crux"], "quiet": True},
        "grid": {"jobsPerDay": [round(k * REAL_JOBS_PER_DAY) for k in (1, 2, 3)],
                 "seed": [1, 2, 3]},
    }],
    "plots": [
        {"name": "utilization-vs-load", "x": "jobsPerDay", "y": "mean_gpu_utilization",
         "by": "run"},
        {"name": "busy-vs-load", "x": "jobsPerDay", "y": "busy_gpu_fraction", "by": "run"},
    ],
}
