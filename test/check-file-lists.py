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
"""Check the crux file lists against the files on disk, and the waf build's reader against CMake.

``cmake/crux-sources.cmake`` is the one place the module's files are listed. CMake includes it;
the waf build (``wscript``, ``examples/wscript``) reads it at configure and build time with
``cmake/crux_sources.py``, a strict reader of its ``set()`` blocks, and holds no list of its own.
This script reports, one line per discrepancy naming the file and the list:

* the reader of the tree (``cmake/crux_sources.py``) fails on the file, or gives lists other than
  those CMake itself evaluates from it (``cmake -P``: every variable the file sets);
* a list the checks need is not set;
* a file on disk that is in no list (or not in the list its location calls for), e.g. a
  ``drivers/`` file in ``CRUX_PURE_SOURCES`` or a ``model/scheduling/`` source outside it;
* a listed file that does not exist;
* a suite name in ``CRUX_TEST_SUITES`` that no test source registers, or a
  ``TestSuite("name", ...)`` registered in a test source but not named in ``CRUX_TEST_SUITES``
  (ctest would not run it);
* duplicates, and headers whose flat install names (``ns3/<name>.h``) collide, with each other
  or with a header of ns-3 itself in a ``--ns3-include`` directory (ns-3's core has
  ``ns3/csv-reader.h``: a crux header of that name is found or hidden by include order);
* a wscript that is missing or names a source file or list entry in a string of its own (a
  hand-kept copy of a list: the wscripts must take them from the reader).

The lists checked against the disk are CMake's own evaluation of the file. Standard library and
``cmake`` only.

Usage::

    check-file-lists.py [--cmake CMAKE] [--ns3-include DIR ...] [MODULE_ROOT]
                                                        # default: the directory above this script
    check-file-lists.py [--cmake CMAKE] --self-test     # prove on fake module trees that each
                                                        # kind is detected

Exit status: 0 consistent (or self-test passed), 1 discrepancies (or a self-test case failed),
2 bad usage or cmake cannot be run.
"""

import argparse
import ast
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

CMAKE_FILE = "cmake/crux-sources.cmake"
READER_FILE = "cmake/crux_sources.py"
WSCRIPT_FILES = ("wscript", "examples/wscript")
# Referenced directly by CMakeLists.txt (the standalone test runner), so in no list on purpose.
TEST_RUNNER_MAIN = "test/test-runner-main.cc"

# The lists crux-sources.cmake must set.
REQUIRED_LISTS = (
    "CRUX_PURE_SOURCES",
    "CRUX_PURE_DRIVER_SOURCES",
    "CRUX_SOURCES",
    "CRUX_HEADERS",
    "CRUX_TEST_SOURCES",
    "CRUX_TEST_SUITES",
    "CRUX_GTEST_SOURCES",
    "CRUX_EXAMPLES",
    "CRUX_BENCH_PROGRAMS",
)
# Lists whose entries are paths relative to the module root.
PATH_LISTS = (
    "CRUX_PURE_SOURCES",
    "CRUX_PURE_DRIVER_SOURCES",
    "CRUX_SOURCES",
    "CRUX_HEADERS",
    "CRUX_TEST_SOURCES",
    "CRUX_GTEST_SOURCES",
)
# Build-variant lists (optional): sources and headers compiled only in some builds, e.g. only
# when ns-3 has its mpi module. Each counts as part of the list named here (its files lie where
# that list's files lie).
VARIANT_LISTS = {
    "CRUX_MPI_SOURCES": "CRUX_SOURCES",
    "CRUX_NO_MPI_SOURCES": "CRUX_SOURCES",
    "CRUX_MPI_HEADERS": "CRUX_HEADERS",
}
# Lists whose entries are program names: <dir>/<name>.cc.
PROGRAM_LISTS = {"CRUX_EXAMPLES": "examples", "CRUX_BENCH_PROGRAMS": "bench"}

# Kinds of discrepancy (stable identifiers; the self-test matches on them).
UNLISTED = "unlisted"  # on disk, in no list
WRONG_LIST = "wrong-list"  # on disk or listed, but not in the list its location calls for
MISSING = "missing"  # listed, not on disk
READER_MISMATCH = "reader-mismatch"  # cmake/crux_sources.py reads a list other than CMake does
HAND_LIST = "hand-list"  # a wscript names a listed file or entry itself
SUITE_UNREGISTERED = "suite-unregistered"  # in CRUX_TEST_SUITES, registered nowhere
SUITE_UNLISTED = "suite-unlisted"  # registered in a test source, not in CRUX_TEST_SUITES
DUPLICATE = "duplicate"
HEADER_CLASH = "header-clash"
PARSE = "parse"


class CheckError(Exception):
    """The check cannot run (cmake missing or failing for another reason than the file)."""


@dataclass(frozen=True, order=True)
class Discrepancy:
    """One inconsistency. ``subject`` is a file path (or a test-suite name), ``where`` the list."""

    subject: str
    kind: str
    where: str
    detail: str

    def __str__(self):
        return f"{self.subject}: {self.detail} [{self.where}]"


# --------------------------------------------------------------------------------------------
# cmake/crux-sources.cmake as CMake evaluates it, and as the waf build's reader reads it

# Every variable the file sets (the variables defined after include() but not before), one
# NAME=value line each; a list value is ;-separated.
_CMAKE_DUMP = """\
get_cmake_property(_crux_before VARIABLES)
include("${CRUX_SOURCES_FILE}")
get_cmake_property(_crux_after VARIABLES)
list(REMOVE_ITEM _crux_after ${_crux_before} _crux_before CMAKE_PARENT_LIST_FILE)
file(WRITE "${CRUX_OUT}" "")
foreach(_crux_name ${_crux_after})
  file(APPEND "${CRUX_OUT}" "${_crux_name}=${${_crux_name}}\\n")
endforeach()
"""


def cmake_lists(cmake, cmake_file):
    """The lists CMake sets from ``cmake_file``: (dict NAME -> list of str, error or None).

    ``error`` is CMake's message when the file itself fails (then the dict is empty); CheckError
    when cmake cannot be run at all.
    """
    with tempfile.TemporaryDirectory(prefix="crux-check-file-lists-cmake-") as tmp:
        script = Path(tmp) / "dump.cmake"
        out = Path(tmp) / "lists.txt"
        script.write_text(_CMAKE_DUMP)
        command = [cmake, f"-DCRUX_SOURCES_FILE={Path(cmake_file).resolve()}",
                   f"-DCRUX_OUT={out}", "-P", str(script)]
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except OSError as err:
            raise CheckError(f"cannot run {cmake!r} ({err.strerror}); pass --cmake") from err
        except subprocess.TimeoutExpired as err:
            raise CheckError(f"{cmake} -P timed out on {cmake_file}") from err
        if run.returncode != 0 or not out.is_file():
            lines = [line.strip() for line in run.stderr.splitlines() if line.strip()]
            return {}, " ".join(lines[:4]) or f"cmake -P exited with {run.returncode}"
        lists = {}
        for line in out.read_text().splitlines():
            name, _, value = line.partition("=")
            lists[name] = value.split(";") if value else []
        return lists, None


def load_reader(path):
    """The reader module at ``path`` (cmake/crux_sources.py of a tree), executed as the wscript
    executes it: a dict of its globals (``read_lists``, ``FileListError``)."""
    scope = {"__name__": "crux_sources"}
    code = Path(path).read_text(encoding="utf-8")
    exec(compile(code, str(path), "exec"), scope)  # pylint: disable=exec-used
    return scope


def _describe_difference(name, theirs, ours):
    only_reader = [e for e in dict.fromkeys(ours) if e not in theirs]
    only_cmake = [e for e in dict.fromkeys(theirs) if e not in ours]
    parts = [f"{READER_FILE} reads {len(ours)} entries of {name}, CMake {len(theirs)}"]
    if only_reader:
        parts.append(f"only the reader: {' '.join(only_reader[:5])}")
    if only_cmake:
        parts.append(f"only CMake: {' '.join(only_cmake[:5])}")
    if not only_reader and not only_cmake:
        parts.append("same entries, other order or count")
    return "; ".join(parts)


def _check_reader(root, cmake_view):
    """The tree's reader on the tree's cmake file, against CMake's evaluation of it."""
    if not (root / READER_FILE).is_file():
        return [Discrepancy(READER_FILE, MISSING, "waf build", "the reader of "
                            f"{CMAKE_FILE} the wscripts use is missing")]
    try:
        reader = load_reader(root / READER_FILE)
    except Exception as err:  # pylint: disable=broad-except  (a broken reader is a finding)
        return [Discrepancy(READER_FILE, PARSE, "waf build",
                            f"cannot be loaded: {type(err).__name__}: {err}")]
    try:
        ours = reader["read_lists"](str(root / CMAKE_FILE), origin=CMAKE_FILE)
    except reader["FileListError"] as err:  # file:line: what it does not understand
        return [Discrepancy(CMAKE_FILE, PARSE, "waf build", str(err))]
    out = []
    for name in sorted(set(cmake_view) | set(ours)):
        if name not in ours:
            out.append(Discrepancy(CMAKE_FILE, READER_MISMATCH, name, f"CMake sets {name}, "
                                   f"{READER_FILE} does not read it"))
        elif name not in cmake_view:
            out.append(Discrepancy(CMAKE_FILE, READER_MISMATCH, name, f"{READER_FILE} reads "
                                   f"{name}, CMake does not set it"))
        elif ours[name] != cmake_view[name]:
            out.append(Discrepancy(CMAKE_FILE, READER_MISMATCH, name,
                                   _describe_difference(name, cmake_view[name], ours[name])))
    return out


# --------------------------------------------------------------------------------------------
# the wscripts: no hand-kept list

# A string that names a source file: a path ending in .cc, .h or .proto (not '.cc' alone).
_SOURCE_PATH = re.compile(r"[\w+-][\w./+-]*\.(?:cc|h|proto)")


def hand_kept_entries(text, origin, entries):
    """Discrepancies for the string literals of a wscript that name a source file or an entry of
    a list (``entries``): a copy of a list that the reader should provide."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as err:
        return [Discrepancy(origin, PARSE, "waf build", f"cannot read as Python: {err}")]
    out = []
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        try:
            value = ast.literal_eval(token.string)
        except (ValueError, SyntaxError):
            continue  # an f-string
        if isinstance(value, str) and (value in entries or _SOURCE_PATH.fullmatch(value)):
            out.append(Discrepancy(origin, HAND_LIST, "waf build", f"line {token.start[0]} names "
                                   f"{value!r} itself (the file lists belong in {CMAKE_FILE} "
                                   f"only; take them from {READER_FILE})"))
    return out


def _check_wscripts(root, lists):
    entries = {entry for items in lists.values() for entry in items}
    out = []
    for name in WSCRIPT_FILES:
        path = root / name
        if not path.is_file():
            out.append(Discrepancy(name, MISSING, "waf build", "the waf build script is missing"))
            continue
        out += hand_kept_entries(path.read_text(encoding="utf-8"), name, entries)
    return out


# --------------------------------------------------------------------------------------------
# C++ test sources

_CXX_LEXEMES = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL
)
# TestSuite("name", ...) in a constructor initializer, or TestSuite g_x("name", ...).
_TEST_SUITE_CTOR = re.compile(r"\bTestSuite\s*(?:[A-Za-z_]\w*\s*)?[({]\s*\"((?:\\.|[^\"\\])*)\"")


def strip_cxx_comments(source):
    """Replace C++ comments by a space, keeping string and character literals intact."""
    return _CXX_LEXEMES.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else " ", source)


def registered_test_suites(source):
    """Names passed as the first argument of a ``TestSuite("name", ...)`` constructor call.

    This is how the crux suites register (``MySuite() : TestSuite("crux-foo", UNIT)``); a direct
    ``static TestSuite g_x("name", ...)`` is recognised too. Comments are ignored.
    """
    return _TEST_SUITE_CTOR.findall(strip_cxx_comments(source))



# --------------------------------------------------------------------------------------------
# the check


def _expected_list(path):
    """The CMake list a file on disk belongs to, from its location; None if not a listed kind."""
    parts = path.split("/")
    suffix = os.path.splitext(path)[1]
    if parts[0] in ("model", "helper", "drivers"):
        if suffix in (".cc", ".cpp", ".cxx"):
            # the cluster description and the scheduling layer must stay free of the simulator
            if parts[:2] in (["model", "scheduling"], ["model", "cluster"]) and len(parts) == 3:
                return "CRUX_PURE_SOURCES"
            return "CRUX_SOURCES"
        if suffix in (".h", ".hpp"):
            return "CRUX_HEADERS"
        return None
    if suffix != ".cc":
        return None
    if parts[0] == "test" and len(parts) == 2 and path != TEST_RUNNER_MAIN:
        return "CRUX_TEST_SOURCES"
    if parts[:2] == ["test", "gtest"] and len(parts) == 3:
        return "CRUX_GTEST_SOURCES"
    if parts[0] == "examples" and len(parts) == 2:
        return "CRUX_EXAMPLES"
    if parts[0] == "bench" and len(parts) == 2:
        return "CRUX_BENCH_PROGRAMS"
    return None


def _entry_allowed(list_name, entry):
    """Whether a list entry lies where its list says (paths) or is a bare name (programs)."""
    if list_name in PROGRAM_LISTS:
        return "/" not in entry and not entry.endswith(".cc") and entry != ""
    expected = _expected_list(entry)
    if list_name == "CRUX_SOURCES":
        return expected in ("CRUX_SOURCES", "CRUX_PURE_SOURCES")
    if list_name == "CRUX_PURE_SOURCES":
        # the model library crux-scheduling: other model layers may add simulator-free sources
        # (pure metrics, t_j and I_j), helper/ and drivers/ may not (no drivers/ file in a model
        # library: the drivers' simulator-free files are CRUX_PURE_DRIVER_SOURCES)
        return expected in ("CRUX_SOURCES", "CRUX_PURE_SOURCES") and entry.startswith("model/")
    if list_name == "CRUX_PURE_DRIVER_SOURCES":
        # the library crux-pure-drivers: drivers/ sources only
        return expected == "CRUX_SOURCES" and entry.startswith("drivers/")
    return expected == list_name


def _files_on_disk(root):
    found = []
    for top in ("model", "helper", "drivers", "test", "examples", "bench"):
        base = root / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(
                d for d in dirnames if d != "__pycache__" and not d.startswith(".")
            )
            for name in sorted(filenames):
                found.append((Path(dirpath) / name).relative_to(root).as_posix())
    return found


def _duplicates(entries, where, subject_fmt="{}"):
    seen, out = set(), []
    for entry in entries:
        if entry in seen:
            out.append(Discrepancy(subject_fmt.format(entry), DUPLICATE, where, "listed twice"))
        seen.add(entry)
    return out


def check(root, cmake="cmake", ns3_includes=()):
    """Run every check on the module tree at ``root``; returns a sorted list of Discrepancy.

    ``ns3_includes``: include directories of the ns-3 the module builds against (each holding
    ``ns3/<name>.h``); a crux header whose flat name is there too is a HEADER_CLASH.
    """
    root = Path(root)
    if not (root / CMAKE_FILE).is_file():
        return [Discrepancy(CMAKE_FILE, MISSING, "file lists", "the CMake file lists are missing")]
    lists, error = cmake_lists(cmake, root / CMAKE_FILE)
    out = []
    if error:
        out.append(Discrepancy(CMAKE_FILE, PARSE, "CMake", f"cmake -P fails on it: {error}"))
    out += _check_reader(root, lists)
    if error:
        return sorted(set(out))
    for name in REQUIRED_LISTS:
        if name not in lists:
            out.append(Discrepancy(CMAKE_FILE, PARSE, name, f"list {name} is not set"))
            lists[name] = []

    # Each list on its own: duplicates, entries in the wrong place, listed files that are missing.
    for name in VARIANT_LISTS:
        lists.setdefault(name, [])
    for name in REQUIRED_LISTS + tuple(VARIANT_LISTS):
        out += _duplicates(lists[name], name)
    for name, parent in VARIANT_LISTS.items():
        for entry in dict.fromkeys(lists[name]):
            if not _entry_allowed(parent, entry):
                out.append(Discrepancy(entry, WRONG_LIST, name, f"does not belong in {name} "
                                       "(wrong directory or file type)"))
            elif not (root / entry).is_file():
                out.append(Discrepancy(entry, MISSING, name, "listed but not on disk"))
    for name in PATH_LISTS + tuple(PROGRAM_LISTS):
        for entry in dict.fromkeys(lists[name]):
            if not _entry_allowed(name, entry):
                out.append(Discrepancy(entry, WRONG_LIST, name, f"does not belong in {name} "
                                       "(wrong directory or file type)"))
    for name in PATH_LISTS:
        for entry in dict.fromkeys(lists[name]):
            if name == "CRUX_SOURCES" and (entry in lists["CRUX_PURE_SOURCES"] or
                                           entry in lists["CRUX_PURE_DRIVER_SOURCES"]):
                continue  # reported once, under CRUX_PURE_SOURCES / CRUX_PURE_DRIVER_SOURCES
            if not (root / entry).is_file():
                out.append(Discrepancy(entry, MISSING, name, "listed but not on disk"))
    for name, folder in PROGRAM_LISTS.items():
        for entry in dict.fromkeys(lists[name]):
            if _entry_allowed(name, entry) and not (root / folder / f"{entry}.cc").is_file():
                out.append(Discrepancy(f"{folder}/{entry}.cc", MISSING, name,
                                       "listed but not on disk"))

    # Files on disk: each must be in the list its location calls for.
    membership = {}
    for name in PATH_LISTS:
        for entry in lists[name]:
            membership.setdefault(entry, set()).add(name)
    for name, parent in VARIANT_LISTS.items():
        for entry in lists[name]:
            membership.setdefault(entry, set()).add(parent)
    for name, folder in PROGRAM_LISTS.items():
        for entry in lists[name]:
            membership.setdefault(f"{folder}/{entry}.cc", set()).add(name)
    for path in _files_on_disk(root):
        expected = _expected_list(path)
        if expected is None:
            continue
        present = membership.get(path, set())
        if expected in present:
            continue
        if present:
            out.append(Discrepancy(path, WRONG_LIST, expected, f"on disk and in "
                                   f"{', '.join(sorted(present))}, but not in {expected}"))
        else:
            out.append(Discrepancy(path, UNLISTED, expected, f"on disk but in no list "
                                   f"(add it to {expected})"))

    # Headers are installed flat as ns3/<name>.h: basenames must be unique.
    by_name = {}
    for header in dict.fromkeys(lists["CRUX_HEADERS"]):
        by_name.setdefault(os.path.basename(header), []).append(header)
    for base, headers in sorted(by_name.items()):
        for header in headers[1:]:
            out.append(Discrepancy(header, HEADER_CLASH, "CRUX_HEADERS", f"installs as ns3/{base}, "
                                   f"like {headers[0]}"))
        for include in ns3_includes:
            theirs = Path(include) / "ns3" / base
            if theirs.is_file():
                out.append(Discrepancy(headers[0], HEADER_CLASH, "CRUX_HEADERS",
                                       f"installs as ns3/{base}, which ns-3 has too ({theirs}): "
                                       f"#include \"ns3/{base}\" finds one of the two by "
                                       f"include order"))

    # TestSuite names registered in the test sources vs CRUX_TEST_SUITES.
    registered = {}
    for source in dict.fromkeys(lists["CRUX_TEST_SOURCES"]):
        path = root / source
        if not path.is_file():
            continue
        names = registered_test_suites(path.read_text(encoding="utf-8", errors="replace"))
        if not names:
            out.append(Discrepancy(source, SUITE_UNLISTED, "CRUX_TEST_SOURCES",
                                   'registers no TestSuite("name", ...) with a literal name'))
        for suite in names:
            registered.setdefault(suite, source)
    listed_suites = lists["CRUX_TEST_SUITES"]
    for suite in sorted(set(listed_suites) - set(registered)):
        out.append(Discrepancy(suite, SUITE_UNREGISTERED, "CRUX_TEST_SUITES", "test suite listed "
                               "but registered by no file of CRUX_TEST_SOURCES"))
    for suite in sorted(set(registered) - set(listed_suites)):
        out.append(Discrepancy(registered[suite], SUITE_UNLISTED, "CRUX_TEST_SUITES",
                               f'registers TestSuite("{suite}") but {suite} is not in '
                               "CRUX_TEST_SUITES (ctest would not run it)"))

    out += _check_wscripts(root, lists)
    return sorted(set(out))


# --------------------------------------------------------------------------------------------
# self-test: a small fake module tree, consistent, then one mutation per discrepancy kind

_FAKE_CMAKE = """\
# fake crux-sources.cmake
set(CRUX_PURE_SOURCES
    # --- scheduling ---
    model/scheduling/sched.cc
)
set(CRUX_PURE_DRIVER_SOURCES
    drivers/cases.cc
)
set(CRUX_SOURCES
    ${CRUX_PURE_SOURCES}
    ${CRUX_PURE_DRIVER_SOURCES}
    # --- fabric ---
    model/fabric/dev.cc
    helper/dev-helper.cc
)
set(CRUX_HEADERS
    model/scheduling/sched.h
    model/fabric/dev.h
    helper/dev-helper.h
)
set(CRUX_TEST_SOURCES test/dev-test-suite.cc)
set(CRUX_TEST_SUITES
    crux-dev
)
set(CRUX_GTEST_SOURCES
    test/gtest/sched-test.cc
)
set(CRUX_EXAMPLES
    dev-example
)
set(CRUX_BENCH_PROGRAMS
    dev-bench
)
"""

# The wscripts as the module's own: every list from the reader, none of their own.
_FAKE_WSCRIPT = """\
import os


def build(bld):
    lists = read_lists_with_the_reader(bld)
    module = bld.create_ns3_module('crux', ['core', 'network'])
    module.source = lists['CRUX_SOURCES']
    module_test = bld.create_ns3_module_test_library('crux')
    module_test.source = lists['CRUX_TEST_SOURCES']
    headers = bld(features='ns3header')
    headers.module = 'crux'
    headers.source = lists['CRUX_HEADERS']
    bld.crux_lists = lists
    bld.recurse('examples')
"""

_FAKE_EXAMPLES_WSCRIPT = """\
def build(bld):
    for name in bld.crux_lists['CRUX_EXAMPLES']:
        obj = bld.create_ns3_program(name, ['crux'])
        obj.source = name + '.cc'
"""

_FAKE_SUITE = """\
// TestSuite("commented-out", UNIT) must not count.
/* static TestSuite("also-commented", UNIT); */
class DevTestSuite : public TestSuite
{
  public:
    DevTestSuite()
        : TestSuite("crux-dev", UNIT)
    {
    }
};
"""

# The reader under test: this module's own (each fake tree gets a copy).
_READER_SOURCE = Path(__file__).resolve().parent.parent / READER_FILE

# Appended to a tree's copy of the reader: a reader bug that drops the last header.
_READER_BUG = """
_correct_parse_lists = parse_lists


def parse_lists(text, origin="cmake/crux-sources.cmake"):
    lists = _correct_parse_lists(text, origin)
    lists["CRUX_HEADERS"] = lists["CRUX_HEADERS"][:-1]
    return lists
"""

# An ns-3 include directory of the fake tree (outside the directories scanned for files).
_FAKE_NS3_INCLUDE = "ns3-include"

_FAKE_TREE = {
    CMAKE_FILE: _FAKE_CMAKE,
    "wscript": _FAKE_WSCRIPT,
    "examples/wscript": _FAKE_EXAMPLES_WSCRIPT,
    "model/scheduling/sched.cc": "",
    "model/scheduling/sched.h": "",
    "model/fabric/dev.cc": "",
    "model/fabric/dev.h": "",
    "model/fabric/README.txt": "not a source: ignored",
    "helper/dev-helper.cc": "",
    "helper/dev-helper.h": "",
    "drivers/cases.cc": "",
    "test/dev-test-suite.cc": _FAKE_SUITE,
    TEST_RUNNER_MAIN: "",
    "test/gtest/sched-test.cc": "",
    "examples/dev-example.cc": "",
    "examples/CMakeLists.txt": "",
    "bench/dev-bench.cc": "",
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


def _append(path, text):
    def apply(root):
        with open(root / path, "a", encoding="utf-8") as handle:
            handle.write(text)

    return apply


def _delete(path):
    return lambda root: (root / path).unlink()


# (case name, mutations, expected {(kind, subject)})
SELF_TEST_CASES = [
    ("consistent tree", [], set()),
    ("file added to the CMake list only (the wscripts read it: nothing else to edit)",
     [_write("model/fabric/new.cc"),
      _edit(CMAKE_FILE, "    model/fabric/dev.cc\n", "    model/fabric/dev.cc\n    "
            "model/fabric/new.cc\n")],
     set()),
    ("source on disk in no list", [_write("model/fabric/extra.cc")],
     {(UNLISTED, "model/fabric/extra.cc")}),
    ("nested model source in no list", [_write("model/fabric/sub/deep.cc")],
     {(UNLISTED, "model/fabric/sub/deep.cc")}),
    ("header on disk in no list", [_write("helper/extra-helper.h")],
     {(UNLISTED, "helper/extra-helper.h")}),
    ("test suite source in no list", [_write("test/extra-test-suite.cc", _FAKE_SUITE)],
     {(UNLISTED, "test/extra-test-suite.cc")}),
    ("gtest source in no list", [_write("test/gtest/extra-test.cc")],
     {(UNLISTED, "test/gtest/extra-test.cc")}),
    ("example in no list", [_write("examples/extra-example.cc")],
     {(UNLISTED, "examples/extra-example.cc")}),
    ("bench program in no list", [_write("bench/extra-bench.cc")],
     {(UNLISTED, "bench/extra-bench.cc")}),
    ("scheduling source outside CRUX_PURE_SOURCES",
     [_write("model/scheduling/other.cc"),
      _edit(CMAKE_FILE, "    model/fabric/dev.cc\n", "    model/fabric/dev.cc\n    "
            "model/scheduling/other.cc\n")],
     {(WRONG_LIST, "model/scheduling/other.cc")}),
    ("drivers source in the model library CRUX_PURE_SOURCES",
     [_write("drivers/pure.cc"),
      _edit(CMAKE_FILE, "    model/scheduling/sched.cc\n", "    model/scheduling/sched.cc\n"
            "    drivers/pure.cc\n")],
     {(WRONG_LIST, "drivers/pure.cc")}),
    ("model source in CRUX_PURE_DRIVER_SOURCES",
     [_write("model/metrics/pure.cc"),
      _edit(CMAKE_FILE, "    drivers/cases.cc\n)", "    drivers/cases.cc\n"
            "    model/metrics/pure.cc\n)")],
     {(WRONG_LIST, "model/metrics/pure.cc")}),
    ("listed pure driver source missing", [_delete("drivers/cases.cc")],
     {(MISSING, "drivers/cases.cc")}),
    ("header listed as a source",
     [_edit(CMAKE_FILE, "    helper/dev-helper.cc\n", "    helper/dev-helper.cc\n"
            "    helper/dev-helper.h\n")],
     {(WRONG_LIST, "helper/dev-helper.h")}),
    ("listed source missing", [_delete("model/fabric/dev.cc")],
     {(MISSING, "model/fabric/dev.cc")}),
    ("listed scheduling source missing", [_delete("model/scheduling/sched.cc")],
     {(MISSING, "model/scheduling/sched.cc")}),
    ("listed header missing", [_delete("helper/dev-helper.h")],
     {(MISSING, "helper/dev-helper.h")}),
    ("listed test source missing", [_delete("test/dev-test-suite.cc")],
     {(MISSING, "test/dev-test-suite.cc"), (SUITE_UNREGISTERED, "crux-dev")}),
    ("listed gtest source missing", [_delete("test/gtest/sched-test.cc")],
     {(MISSING, "test/gtest/sched-test.cc")}),
    ("listed example missing", [_delete("examples/dev-example.cc")],
     {(MISSING, "examples/dev-example.cc")}),
    ("listed bench program missing", [_delete("bench/dev-bench.cc")],
     {(MISSING, "bench/dev-bench.cc")}),
    ("suite renamed in the source",
     [_edit("test/dev-test-suite.cc", '"crux-dev"', '"crux-device"')],
     {(SUITE_UNREGISTERED, "crux-dev"), (SUITE_UNLISTED, "test/dev-test-suite.cc")}),
    ("extra suite registered but not listed",
     [_edit("test/dev-test-suite.cc", "};\n", '};\nstatic TestSuite g_x("crux-extra", UNIT);\n')],
     {(SUITE_UNLISTED, "test/dev-test-suite.cc")}),
    ("suite listed but never registered",
     [_edit(CMAKE_FILE, "    crux-dev\n", "    crux-dev\n    crux-ghost\n")],
     {(SUITE_UNREGISTERED, "crux-ghost")}),
    ("entry listed twice", [_edit(CMAKE_FILE, "    model/fabric/dev.h\n",
                                  "    model/fabric/dev.h\n    model/fabric/dev.h\n")],
     {(DUPLICATE, "model/fabric/dev.h")}),
    ("headers with the same flat name",
     [_write("model/fabric/sched.h"),
      _edit(CMAKE_FILE, "    model/fabric/dev.h\n", "    model/fabric/dev.h\n    "
            "model/fabric/sched.h\n")],
     {(HEADER_CLASH, "model/fabric/sched.h")}),
    ("header named like one of ns-3's own",
     [_write(f"{_FAKE_NS3_INCLUDE}/ns3/dev.h")],
     {(HEADER_CLASH, "model/fabric/dev.h")}),
    ("required list not set",
     [_edit(CMAKE_FILE, "set(CRUX_BENCH_PROGRAMS\n    dev-bench\n)\n", "")],
     {(PARSE, CMAKE_FILE), (UNLISTED, "bench/dev-bench.cc")}),
    # the reader of the waf build against CMake
    ("undefined variable (CMake: empty; the reader stops)",
     [_edit(CMAKE_FILE, "${CRUX_PURE_SOURCES}", "${CRUX_PURE_SOURCES}\n    ${CRUX_NOPE}")],
     {(PARSE, CMAKE_FILE)}),
    ("CMake command the reader does not understand",
     [_append(CMAKE_FILE, "list(REMOVE_DUPLICATES CRUX_HEADERS)\n")],
     {(PARSE, CMAKE_FILE)}),
    ("quoted item the reader does not understand",
     [_edit(CMAKE_FILE, "    dev-bench\n", '    "dev-bench"\n')],
     {(PARSE, CMAKE_FILE)}),
    ("set() never closed (CMake fails too)",
     [_edit(CMAKE_FILE, "    dev-bench\n)\n", "    dev-bench\n")],
     {(PARSE, CMAKE_FILE)}),
    ("reader reads a list other than CMake", [_append(READER_FILE, _READER_BUG)],
     {(READER_MISMATCH, CMAKE_FILE)}),
    ("reader missing", [_delete(READER_FILE)], {(MISSING, READER_FILE)}),
    # the wscripts hold no list of their own
    ("wscript keeps a source list of its own",
     [_edit("wscript", "import os\n", "import os\n\nEXTRA = ['model/fabric/dev.cc']\n")],
     {(HAND_LIST, "wscript")}),
    ("examples/wscript keeps an example list of its own",
     [_edit("examples/wscript", "bld.crux_lists['CRUX_EXAMPLES']", "['dev-example']")],
     {(HAND_LIST, "examples/wscript")}),
    ("wscript missing", [_delete("wscript")], {(MISSING, "wscript")}),
    ("examples/wscript missing", [_delete("examples/wscript")], {(MISSING, "examples/wscript")}),
]


def self_test(cmake="cmake"):
    """Run check() on a fresh fake tree per case; return the number of failed cases."""
    failed = 0
    reader = _READER_SOURCE.read_text(encoding="utf-8")
    for name, mutations, expected in SELF_TEST_CASES:
        tmp = Path(tempfile.mkdtemp(prefix="crux-check-file-lists-"))
        try:
            for path, text in {**_FAKE_TREE, READER_FILE: reader}.items():
                _write(path, text)(tmp)
            for mutate in mutations:
                mutate(tmp)
            found = check(tmp, cmake, [tmp / _FAKE_NS3_INCLUDE])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        got = {(d.kind, d.subject) for d in found}
        if got == expected:
            print(f"ok    {name}")
        else:
            failed += 1
            print(f"FAIL  {name}: expected {sorted(expected)}, got {sorted(got)}")
            for d in found:
                print(f"        {d}")
    passed = len(SELF_TEST_CASES) - failed
    print(f"check-file-lists self-test: {passed} passed, {failed} failed")
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parent.parent),
                        help="module root (default: the directory above this script)")
    parser.add_argument("--cmake", default="cmake",
                        help="the cmake program that evaluates crux-sources.cmake (default: cmake)")
    parser.add_argument("--ns3-include", action="append", default=[], metavar="DIR",
                        help="an include directory of the ns-3 built against (holding "
                        "ns3/<name>.h); repeatable")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on temporary fake module trees")
    args = parser.parse_args(argv)
    try:
        if args.self_test:
            return 1 if self_test(args.cmake) else 0
        root = Path(args.root)
        if not root.is_dir():
            parser.error(f"{root} is not a directory")
        problems = check(root, args.cmake, args.ns3_include)
    except CheckError as err:
        print(f"check-file-lists: {err}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-file-lists: {len(problems)} discrepancies in {root}")
        return 1
    print(f"check-file-lists: OK ({root}: the files on disk match the lists of {CMAKE_FILE}, "
          f"which {READER_FILE} reads as CMake does)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
