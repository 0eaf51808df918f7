# This program is free software; you can redistribute it and/or modify
# it under the terms of the GNU General Public License version 2 as
# published by the Free Software Foundation;
#
# This program is distributed in the hope that it will be useful,
# but WITHOUT ANY WARRANTY; without even the implied warranty of
# MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
# GNU General Public License for more details.
#
# You should have received a copy of the GNU General Public License
# along with this program; if not, write to the Free Software
# Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
"""The settings that define a crux-trace-run run, as opposed to its evaluation.

Standard library only: ``scripts/compare-evaluators.py`` (no pandas) and
``crux.results`` (the figure scripts) share this one list. Two runs whose ``summary.json``
agree on every field of :data:`RUN_SETTINGS` simulated the same jobs on the same cluster with
the same placement: they may differ in the scheduler and in the evaluation (``engine``,
``evaluator``, ``timeline`` and the coarse evaluator's options), and their numbers can be
compared. A run that differs in one of them (another ``--seed``, trace, topology, link rate,
window, ...) is another experiment.

Usage::

    from crux.run_settings import RUN_SETTINGS, first_difference
    key = first_difference(summary_a, summary_b)   # None: the same run settings
"""

#: summary.json fields of a trace run that define the run (not its evaluation): the topology
#: and its link rates, the placement, the seeds (trace generation, model draw, ECMP hash), the
#: priority levels, the paths per job, the work model, the trace (source, days, jobs per day)
#: and the measurement window and drain.
RUN_SETTINGS = ("topology", "total_gpus", "clos", "topo_csv", "link_rates_bps", "intra_host",
                "placement", "placement_seed", "seed", "num_levels", "unique_priorities",
                "max_paths", "work_model", "trace", "window", "drain_s")


def first_difference(a, b, ignore=()):
    """The first field of :data:`RUN_SETTINGS` (in its order) in which two summaries differ.

    :param a: one run's summary.json, parsed (dict)
    :param b: the other's
    :param ignore: fields not compared (e.g. ``("placement", "placement_seed")`` for runs that
        differ in the job scheduler by design)
    :return: the field's name, or None if they agree on every field both have (a field that
        one summary lacks, written by an older build, is not compared)
    """
    for key in RUN_SETTINGS:
        if key in ignore or key not in a or key not in b:
            continue
        if a[key] != b[key]:
            return key
    return None
