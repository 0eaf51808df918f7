#!/usr/bin/env python3
#
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
"""Check that no crux source includes a header of a layer above its own.

doc/crux.rst, "Layers and data flow": each layer is a folder, data flows downwards, and nothing
below knows what is above it. LAYERS below is that diagram, bottom first (model/util, the
bottom layer, holds the value types and constants several layers share). A file may include the
crux headers of its own layer and of every layer below; an include of a header of a higher layer
is an *upward arrow*.

The check reads every ``.h`` and ``.cc`` under ``model/``, ``helper/`` and ``drivers/`` (comments
removed, line numbers kept) and resolves each ``#include``:

* ``"ns3/<name>.h"`` (or ``<ns3/<name>.h>``) to the crux header installed under that flat name,
  from ``CRUX_HEADERS`` and ``CRUX_MPI_HEADERS`` of ``cmake/crux-sources.cmake``; other ns3/
  names are ns-3's own headers and are not crux layers;
* ``"<path>"`` to the file next to the including one (C++'s own rule), if it exists.

It prints one line per upward arrow, ``file:line: includes "header" = path (layer A -> layer B,
upward)``, and one per file outside every layer of the table, and exits with 1 if there is any.
It also checks that the table is the doc's diagram: the folders of the literal block under the
heading "Layers and data flow" (searched in every doc/**/*.rst), top to bottom, must be the table
read top to bottom.

Examples, benchmarks, tests and bindings sit above every layer and are not checked.
Standard library only.

Usage::

    check-layering.py [MODULE_ROOT]   # default: the directory above this script
    check-layering.py --graph [ROOT]  # also print the layer-to-layer include counts
    check-layering.py --self-test     # prove on temporary trees that an upward include fails

Exit status: 0 no upward arrow (or self-test passed), 1 upward arrows or other problems (or a
self-test case failed), 2 bad usage.
"""

import argparse
import importlib.util
import io
import os
import re
import shutil
import sys
import tempfile
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

# The layers of doc/crux.rst's diagram, bottom first: (rank, folder, name, what it holds).
# A file of rank r may include the crux headers of every layer of rank <= r (its own and those
# below), i.e.:
#   0 model/util        util only
#   1 model/cluster     util, cluster
#   2 model/fabric      util, cluster, fabric
#   3 model/transport   ... up to transport
#   4 model/workload    ... up to workload
#   5 model/metrics     ... up to metrics
#   6 model/scheduling  ... up to scheduling
#   7 model/trace       ... up to trace
#   8 helper            every model layer and helper
#   9 drivers           everything
# (examples/, bench/, test/ and bindings/ are above all of them and are not checked).
LAYERS = (
    (0, "model/util", "util",
     "shared value types and constants (crux-types.h: SchedLink; five-tuple.h: FiveTuple; "
     "roce-constants.h), PriorityWaterFilling, checked parsers, ns-3 version adapter, "
     "GpuIntensity"),
    (1, "model/cluster", "cluster", "ClusterTopology (the one cluster description), GPU placement"),
    (2, "model/fabric", "fabric", "QbbNetDevice, QbbChannel, CruxSwitch, CruxTopology"),
    (3, "model/transport", "transport", "MessageTransport: RdmaTransport, FlowTransport"),
    (4, "model/workload", "workload", "DltJob, collectives, DltJobApplication, model zoo"),
    (5, "model/metrics", "metrics", "GpuIntensityTracker, LinkThroughputSampler, statistics"),
    (6, "model/scheduling", "scheduling",
     "ClusterModel, CommScheduler and the schedulers, FlowEvaluator"),
    (7, "model/trace", "trace", "Lingjun readers and generator, EpochEngine"),
    (8, "helper", "helper", "build and install"),
    (9, "drivers", "drivers", "experiment drivers (the only layer that runs the Simulator)"),
)
assert [layer[0] for layer in LAYERS] == list(range(len(LAYERS))), "ranks must be 0, 1, ..."
SCANNED = ("model", "helper", "drivers")
SOURCE_SUFFIXES = (".h", ".cc")
CMAKE_FILE = "cmake/crux-sources.cmake"
HEADER_LISTS = ("CRUX_HEADERS", "CRUX_MPI_HEADERS")
DOC_HEADING = "Layers and data flow"

# Kinds of problem (stable identifiers; the self-test matches on them).
UPWARD = "upward"  # an include of a header of a higher layer
NO_LAYER = "no-layer"  # a scanned file in a folder that is not in LAYERS
DOC_MISMATCH = "doc-mismatch"  # LAYERS is not the doc's diagram
MISSING = "missing"  # a file the check needs is missing
LISTS = "lists"  # cmake/crux-sources.cmake cannot be read


@dataclass(frozen=True, order=True)
class Problem:
    """One finding. ``path`` and ``line`` locate it; ``text`` is the message after them."""

    path: str
    line: int
    kind: str
    text: str

    def __str__(self):
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.text}"


def layer_of(path):
    """(rank, name) of the layer a module-relative path belongs to, or None."""
    for rank, folder, name, _ in LAYERS:
        if path.startswith(folder + "/"):
            return rank, name
    return None


# --------------------------------------------------------------------------------------------
# reading sources

_CXX_LEXEMES = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL
)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*([\"<])([^\">\n]+)[\">]", re.MULTILINE)


def strip_comments(source):
    """C++ source with every comment replaced by blanks (newlines kept: line numbers hold)."""

    def blank(match):
        text = match.group(0)
        if text[0] in "\"'":
            return text
        return re.sub(r"[^\n]", " ", text)

    return _CXX_LEXEMES.sub(blank, source)


def includes(source):
    """The ``#include`` directives of a C++ source: list of (line, delimiter, name)."""
    code = strip_comments(source)
    out = []
    for match in _INCLUDE.finditer(code):
        line = code.count("\n", 0, match.start()) + 1
        out.append((line, match.group(1), match.group(2).strip()))
    return out


def _load_reader():
    """cmake/crux_sources.py, the reader of cmake/crux-sources.cmake (the waf build's), as a
    module."""
    path = Path(__file__).resolve().parent.parent / "cmake" / "crux_sources.py"
    spec = importlib.util.spec_from_file_location("crux_sources", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def installed_headers(root):
    """Flat name (``<name>.h``) -> module-relative path of every crux header, from the lists;
    a str (the reader's ``file:line: what``) when it cannot read them."""
    reader = _load_reader()
    try:
        lists = reader.read_lists(str(root / CMAKE_FILE), origin=CMAKE_FILE)
    except reader.FileListError as err:
        return str(err)
    out = {}
    for name in HEADER_LISTS:
        for header in lists.get(name, []):
            out.setdefault(os.path.basename(header), header)
    return out


def scanned_files(root):
    """Module-relative paths of every source under model/, helper/ and drivers/, sorted."""
    found = []
    for top in SCANNED:
        base = root / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and
                                 d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    found.append((Path(dirpath) / name).relative_to(root).as_posix())
    return found


def resolve(root, including, delimiter, name, headers):
    """Module-relative path of the crux file an include names, or None (not a crux file)."""
    if name.startswith("ns3/") and "/" not in name[4:]:
        return headers.get(name[4:])
    if delimiter == '"':
        candidate = os.path.normpath(os.path.join(os.path.dirname(including), name))
        if not candidate.startswith("..") and (root / candidate).is_file():
            return Path(candidate).as_posix()
    return None


# --------------------------------------------------------------------------------------------
# the doc's diagram

_DIAGRAM_FOLDER = re.compile(r"^\s{2,}((?:model/[a-z]+)|helper/|drivers/)(?:\s|$)")


def doc_layers(root):
    """The folders of the doc's layer diagram, top to bottom, and the file it was read from.

    The diagram is the first literal block after the heading DOC_HEADING in doc/**/*.rst: its
    lines that start (indented) with ``model/<layer>``, ``helper/`` or ``drivers/``.
    """
    doc = root / "doc"
    if not doc.is_dir():
        return None, None
    for path in sorted(doc.rglob("*.rst")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.strip() != DOC_HEADING:
                continue
            folders = []
            in_block = False
            for text in lines[i + 1:]:
                if not in_block:
                    in_block = text.rstrip().endswith("::")
                    continue
                if text.strip() and not text[:1].isspace():
                    break  # the literal block ended
                match = _DIAGRAM_FOLDER.match(text)
                if match:
                    folders.append(match.group(1).rstrip("/"))
            return folders, path.relative_to(root).as_posix()
    return None, None


# --------------------------------------------------------------------------------------------
# the check


def check(root, graph=None):
    """Every problem of the module tree at ``root``, sorted.

    ``graph``, if a dict, receives (from layer, to layer) -> number of includes between layers.
    """
    root = Path(root)
    if not (root / CMAKE_FILE).is_file():
        return [Problem(CMAKE_FILE, 0, MISSING, "missing (the header lists are read from it)")]
    headers = installed_headers(root)
    if isinstance(headers, str):
        return [Problem(CMAKE_FILE, 0, LISTS, f"cannot read the header lists: {headers}")]
    out = []
    for path in scanned_files(root):
        own = layer_of(path)
        if own is None:
            out.append(Problem(path, 0, NO_LAYER, "is in no layer of the table of "
                               "test/check-layering.py (add its folder to LAYERS and to the "
                               "doc's diagram)"))
            continue
        source = (root / path).read_text(encoding="utf-8", errors="replace")
        for line, delimiter, name in includes(source):
            target = resolve(root, path, delimiter, name, headers)
            if target is None:
                continue
            other = layer_of(target)
            if other is None:
                continue  # reported for the target itself
            if graph is not None and other[1] != own[1]:
                graph[(own[1], other[1])] = graph.get((own[1], other[1]), 0) + 1
            if other[0] > own[0]:
                shown = f"{delimiter}{name}{'>' if delimiter == '<' else delimiter}"
                out.append(Problem(path, line, UPWARD, f"includes {shown} = {target} "
                                   f"(layer {own[1]} -> layer {other[1]}, upward)"))

    folders, doc = doc_layers(root)
    table = [folder for _, folder, _, _ in reversed(LAYERS)]
    if folders is None:
        out.append(Problem("doc", 0, DOC_MISMATCH, f"no heading '{DOC_HEADING}' with a "
                           "literal block in doc/**/*.rst (the layer diagram)"))
    elif folders != table:
        out.append(Problem(doc, 0, DOC_MISMATCH, "the layer diagram lists (top to bottom) "
                           f"{', '.join(folders)}; test/check-layering.py's LAYERS has "
                           f"{', '.join(table)}"))
    return sorted(set(out))


# --------------------------------------------------------------------------------------------
# self-test: a small fake module tree, clean, then one mutation per kind of problem

_FAKE_CMAKE = """\
set(CRUX_HEADERS
    model/util/types.h
    model/cluster/topo.h
    model/fabric/switch.h
    model/scheduling/sched.h
    helper/helper.h
    drivers/driver.h
)
set(CRUX_MPI_HEADERS
    model/fabric/remote.h
)
"""

_FAKE_DOC = """\
Layers and data flow
####################

Each layer is a folder::

   drivers/          drivers
        |
   helper/           helpers
        |
   model/trace       trace
   model/scheduling  scheduling
   model/metrics     metrics
   model/workload    workload
   model/transport   transport
   model/fabric      fabric
   model/cluster     cluster
   model/util        util

model/nothing after the block counts.
"""

_FAKE_TREE = {
    CMAKE_FILE: _FAKE_CMAKE,
    "doc/crux.rst": _FAKE_DOC,
    "model/util/types.h": "#include <string>\n",
    "model/cluster/topo.h": '#include "ns3/types.h"\n#include "ns3/object.h"\n',
    "model/cluster/topo.cc": '#include "topo.h"\n\n#include "ns3/types.h"\n',
    "model/fabric/switch.h": '#include "ns3/topo.h"\n',
    "model/fabric/remote.h": '#include "switch.h"\n',
    "model/scheduling/sched.h": ('#include "ns3/topo.h"\n'
                                 '// #include "ns3/driver.h" (a comment: not an include)\n'
                                 '/* #include "ns3/helper.h"\n   neither */\n'),
    "model/scheduling/sched.cc": '#include "sched.h"\n#include "chakra.pb.h"\n',
    "helper/helper.h": '#include "ns3/sched.h"\n#include "ns3/switch.h"\n',
    "drivers/driver.h": '#include "ns3/helper.h"\n#include <ns3/remote.h>\n',
    "drivers/driver.cc": '#include "driver.h"\n',
}


def _edit(path, old, new):
    def apply(root):
        file = root / path
        text = file.read_text()
        if text.count(old) != 1:
            raise AssertionError(f"self-test setup: {old!r} occurs {text.count(old)}x in {path}")
        file.write_text(text.replace(old, new))

    return apply


def _write(path, text=""):
    def apply(root):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)

    return apply


# (case name, mutations, expected {(kind, path, line)})
SELF_TEST_CASES = [
    ("clean tree", [], set()),
    ("cluster header includes a scheduling header (ns3/ name)",
     [_edit("model/cluster/topo.h", '#include "ns3/object.h"\n',
            '#include "ns3/object.h"\n#include "ns3/sched.h"\n')],
     {(UPWARD, "model/cluster/topo.h", 3)}),
    ("bottom layer includes the top layer",
     [_edit("model/util/types.h", "#include <string>\n", '#include <string>\n\n'
            '#  include "ns3/driver.h"\n')],
     {(UPWARD, "model/util/types.h", 3)}),
    ("scheduling source includes a helper header (angle brackets)",
     [_edit("model/scheduling/sched.cc", '#include "sched.h"\n',
            '#include "sched.h"\n#include <ns3/helper.h>\n')],
     {(UPWARD, "model/scheduling/sched.cc", 2)}),
    ("fabric source includes a scheduling header by relative path",
     [_write("model/fabric/switch.cc", '#include "switch.h"\n#include "../scheduling/sched.h"\n')],
     {(UPWARD, "model/fabric/switch.cc", 2)}),
    ("an upward include of a variant (MPI) header",
     [_edit("model/cluster/topo.cc", '#include "topo.h"\n', '#include "ns3/remote.h"\n')],
     {(UPWARD, "model/cluster/topo.cc", 1)}),
    ("helper includes a driver header: one line per arrow",
     [_edit("helper/helper.h", '#include "ns3/switch.h"\n',
            '#include "ns3/switch.h"\n#include "ns3/driver.h"\n/* c */ #include "ns3/driver.h"\n')],
     {(UPWARD, "helper/helper.h", 3), (UPWARD, "helper/helper.h", 4)}),
    ("a commented-out upward include, uncommented",
     [_edit("model/scheduling/sched.h", "// #include", "#include")],
     {(UPWARD, "model/scheduling/sched.h", 2)}),
    ("file in a folder that is no layer",
     [_write("model/extra/thing.h", '#include "ns3/types.h"\n')],
     {(NO_LAYER, "model/extra/thing.h", 0)}),
    ("doc diagram in another order",
     [_edit("doc/crux.rst", "   model/metrics     metrics\n   model/workload    workload\n",
            "   model/workload    workload\n   model/metrics     metrics\n")],
     {(DOC_MISMATCH, "doc/crux.rst", 0)}),
    ("doc diagram split into another file",
     [_write("doc/crux.rst", "Crux\n----\n"), _write("doc/model/layers.rst", _FAKE_DOC)],
     set()),
    ("doc diagram missing", [_write("doc/crux.rst", "Crux\n----\n")],
     {(DOC_MISMATCH, "doc", 0)}),
    ("header lists unreadable",
     [_edit(CMAKE_FILE, "    model/fabric/remote.h\n", '    "model/fabric/remote.h"\n')],
     {(LISTS, CMAKE_FILE, 0)}),
]


def _run_main(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(argv)
    return status, out.getvalue()


def self_test():
    """Run check() on a fresh fake tree per case, then main() on a failing one; failures."""
    failed = 0
    for name, mutations, expected in SELF_TEST_CASES:
        tmp = Path(tempfile.mkdtemp(prefix="crux-check-layering-"))
        try:
            for path, text in _FAKE_TREE.items():
                _write(path, text)(tmp)
            for mutate in mutations:
                mutate(tmp)
            found = check(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        got = {(p.kind, p.path, p.line) for p in found}
        if got == expected:
            print(f"ok    {name}")
        else:
            failed += 1
            print(f"FAIL  {name}: expected {sorted(expected)}, got {sorted(got)}")
            for problem in found:
                print(f"        {problem}")

    # The command line on a tree with one upward include: exit 1, the arrow on one line.
    tmp = Path(tempfile.mkdtemp(prefix="crux-check-layering-"))
    try:
        for path, text in _FAKE_TREE.items():
            _write(path, text)(tmp)
        clean_status, clean_out = _run_main([str(tmp)])
        _edit("model/cluster/topo.h", '#include "ns3/object.h"\n',
              '#include "ns3/object.h"\n#include "ns3/sched.h"\n')(tmp)
        status, out = _run_main([str(tmp)])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    line = ('model/cluster/topo.h:3: includes "ns3/sched.h" = model/scheduling/sched.h '
            "(layer cluster -> layer scheduling, upward)")
    if clean_status == 0 and status == 1 and line in out.splitlines():
        print("ok    command line: exit 0 on the clean tree, exit 1 and the arrow's line on the "
              "upward include")
    else:
        failed += 1
        print(f"FAIL  command line: expected exit 0 then 1 with the line {line!r}, got "
              f"{clean_status} then {status}:\n{clean_out}{out}")
    total = len(SELF_TEST_CASES) + 1
    print(f"check-layering self-test: {total - failed} passed, {failed} failed")
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parent.parent),
                        help="module root (default: the directory above this script)")
    parser.add_argument("--graph", action="store_true",
                        help="also print the number of includes between each pair of layers")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on temporary fake module trees")
    args = parser.parse_args(argv)
    if args.self_test:
        return 1 if self_test() else 0
    root = Path(args.root)
    if not root.is_dir():
        parser.error(f"{root} is not a directory")
    graph = {}
    problems = check(root, graph)
    if args.graph:
        ranks = {name: rank for rank, _, name, _ in LAYERS}
        for (a, b), count in sorted(graph.items(), key=lambda e: (-ranks[e[0][0]],
                                                                   -ranks[e[0][1]])):
            print(f"  {a:>10} -> {b:<10} {count:3d} include(s)")
    for problem in problems:
        print(problem)
    order = " < ".join(name for _, _, name, _ in LAYERS)
    if problems:
        print(f"check-layering: {len(problems)} problem(s) in {root} (layers, bottom first: "
              f"{order})")
        return 1
    print(f"check-layering: OK ({root}: no include runs upward; layers, bottom first: {order})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
