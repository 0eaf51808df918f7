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
"""Check that the crux file lists agree with each other and with the files on disk.

The module lists every file explicitly, three times over:

* ``cmake/crux-sources.cmake`` -- the ``set()`` lists used by both CMake build modes;
* ``wscript`` and ``examples/wscript`` -- the waf build (ns-3 <= 3.35);
* the files themselves under ``model/``, ``helper/``, ``drivers/``, ``test/``, ``examples/`` and ``bench/``.

This script reports, one line per discrepancy naming the file and the list:

* a file on disk that is in no list (or not in the list its location calls for);
* a listed file that does not exist;
* an entry that is in the CMake list but not in the wscript, or the other way round;
* a suite name in ``CRUX_TEST_SUITES`` that no test source registers, or a
  ``TestSuite("name", ...)`` registered in a test source but not named in ``CRUX_TEST_SUITES``
  (ctest would not run it);
* duplicates, headers whose flat install names (``ns3/<name>.h``) collide, and lists that cannot be
  read statically (undefined ``${VAR}``, non-literal wscript expressions).

The wscripts are read with :mod:`ast` and a tiny interpreter of their ``build()`` function (literal
lists, names, ``+``, ``for`` loops, the ``bld.create_ns3_*`` calls); they are never executed.
Standard library only.

Usage::

    check-file-lists.py [MODULE_ROOT]   # default: the directory above this script
    check-file-lists.py --self-test     # prove on fake module trees that each kind is detected

Exit status: 0 consistent (or self-test passed), 1 discrepancies (or a self-test case failed),
2 bad usage.
"""

import argparse
import ast
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CMAKE_FILE = "cmake/crux-sources.cmake"
WSCRIPT_FILE = "wscript"
EXAMPLES_WSCRIPT_FILE = "examples/wscript"
# Referenced directly by CMakeLists.txt (the standalone test runner), so in no list on purpose.
TEST_RUNNER_MAIN = "test/test-runner-main.cc"

# The lists crux-sources.cmake must define.
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
# that list's files lie), and the wscript adds it to that list's task generator (both branches
# of its ``if`` are read).
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
CMAKE_ONLY = "cmake-only"  # in the CMake list, not in the wscript
WSCRIPT_ONLY = "wscript-only"  # in the wscript, not in the CMake list
SUITE_UNREGISTERED = "suite-unregistered"  # in CRUX_TEST_SUITES, registered nowhere
SUITE_UNLISTED = "suite-unlisted"  # registered in a test source, not in CRUX_TEST_SUITES
DUPLICATE = "duplicate"
HEADER_CLASH = "header-clash"
PARSE = "parse"


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
# cmake/crux-sources.cmake


_CMAKE_COMMAND = re.compile(r"\b(set|list)\s*\(([^()]*)\)", re.IGNORECASE)
_CMAKE_VAR = re.compile(r"\$\{(\w+)\}")


def parse_cmake_lists(text, origin=CMAKE_FILE):
    """Read the ``set(NAME v1 v2 ...)`` and ``list(APPEND NAME ...)`` commands of a CMake file.

    Comments (``#`` to end of line) are dropped; a value that is exactly ``${VAR}`` is replaced by
    the entries of an earlier list VAR. Returns ``(lists, problems)``: a dict name -> list of str
    (in file order) and a list of Discrepancy.
    """
    lists = {}
    problems = []
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    for match in _CMAKE_COMMAND.finditer(code):
        command = match.group(1).lower()
        args = match.group(2).split()
        if command == "set":
            if not args or "CACHE" in args or "PARENT_SCOPE" in args:
                continue
            name, values, append = args[0], args[1:], False
        else:
            if len(args) < 2 or args[0].upper() != "APPEND":
                continue
            name, values, append = args[1], args[2:], True
        resolved = []
        for value in values:
            var = _CMAKE_VAR.fullmatch(value)
            if var:
                if var.group(1) not in lists:
                    problems.append(
                        Discrepancy(
                            origin,
                            PARSE,
                            name,
                            f"${{{var.group(1)}}} is used before it is set (cannot resolve)",
                        )
                    )
                    continue
                resolved.extend(lists[var.group(1)])
            elif "${" in value:
                problems.append(
                    Discrepancy(
                        origin,
                        PARSE,
                        name,
                        f"cannot resolve '{value}' (only whole ${{VAR}} entries)",
                    )
                )
            else:
                resolved.append(value)
        lists[name] = (lists.get(name, []) if append else []) + resolved
    return lists, problems


# --------------------------------------------------------------------------------------------
# wscript (read with ast, interpreted, never executed)


class _Unknown:
    """A value the static reader cannot determine."""

    def __repr__(self):
        return "<unknown>"


UNKNOWN = _Unknown()


class _WafObject:
    """A task generator created in build(): kind is module / test / headers / program / other."""

    def __init__(self, kind, name, lineno):
        self.kind = kind
        self.name = name
        self.lineno = lineno
        self.attrs = {}  # attribute -> (value, lineno)


class _Bld:
    """Stands for the ``bld`` argument of build()."""


class WscriptReader:
    """Interprets the module-level assignments and the ``build(bld)`` function of a wscript.

    Understood: literal strings/lists/tuples, names, ``+``, assignment (also ``+=``) to names and
    to attributes of task generators, ``for`` loops over literal lists, both branches of ``if``
    (conditions are not evaluated), and the calls ``bld.create_ns3_module(name, deps)``,
    ``bld.create_ns3_module_test_library(name)``, ``bld.create_ns3_program(name, deps)``,
    ``bld(features=...)`` and ``bld.recurse(dir)``. Anything else evaluates to UNKNOWN; an
    UNKNOWN assigned to ``.source`` or looped over is reported as a PARSE discrepancy.
    """

    def __init__(self, text, origin):
        self.origin = origin
        self.objects = []
        self.recursed = []
        self.problems = []
        try:
            self.tree = ast.parse(text, filename=origin)
        except SyntaxError as err:
            self.tree = None
            self._problem(f"Python syntax error at line {err.lineno}: {err.msg}")

    def _problem(self, detail):
        self.problems.append(Discrepancy(self.origin, PARSE, "wscript", detail))

    def run(self):
        """Interpret the file; results are in ``objects``, ``recursed`` and ``problems``."""
        if self.tree is None:
            return self
        env = {}
        build = None
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "build":
                build = stmt
            elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
                self._exec(stmt, env)
        if build is None:
            self._problem("no build(bld) function")
            return self
        if not build.args.args:
            self._problem("build() takes no argument")
            return self
        local = dict(env)
        local[build.args.args[0].arg] = _Bld()
        self._exec_block(build.body, local)
        return self

    def of_kind(self, kind):
        return [o for o in self.objects if o.kind == kind]

    # statements

    def _exec_block(self, stmts, env):
        for stmt in stmts:
            self._exec(stmt, env)

    def _exec(self, stmt, env):
        if isinstance(stmt, ast.Assign):
            value = self._eval(stmt.value, env)
            for target in stmt.targets:
                self._assign(target, value, env, stmt.lineno)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
            current = self._eval(stmt.target, env)
            self._assign(stmt.target, _add(current, self._eval(stmt.value, env)), env, stmt.lineno)
        elif isinstance(stmt, ast.For):
            items = self._eval(stmt.iter, env)
            if not isinstance(items, list) or not isinstance(stmt.target, ast.Name):
                self._problem(f"line {stmt.lineno}: for loop over a non-literal iterable")
                return
            for item in items:
                env[stmt.target.id] = item
                self._exec_block(stmt.body, env)
        elif isinstance(stmt, ast.If):
            self._exec_block(stmt.body, env)
            self._exec_block(stmt.orelse, env)
        elif isinstance(stmt, ast.Expr):
            self._eval(stmt.value, env)

    def _assign(self, target, value, env, lineno):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Attribute):
            owner = self._eval(target.value, env)
            if isinstance(owner, _WafObject):
                if value is UNKNOWN and target.attr in ("source", "module"):
                    self._problem(f"line {lineno}: cannot evaluate the value of .{target.attr}")
                owner.attrs[target.attr] = (value, lineno)

    # expressions

    def _eval(self, node, env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self._eval(e, env) for e in node.elts]
            return UNKNOWN if any(i is UNKNOWN for i in items) else items
        if isinstance(node, ast.Name):
            return env.get(node.id, UNKNOWN)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return _add(self._eval(node.left, env), self._eval(node.right, env))
        if isinstance(node, ast.Attribute):
            owner = self._eval(node.value, env)
            if isinstance(owner, _WafObject) and node.attr in owner.attrs:
                return owner.attrs[node.attr][0]
            return UNKNOWN
        if isinstance(node, ast.Call):
            return self._call(node, env)
        return UNKNOWN

    def _call(self, node, env):
        func = node.func
        args = [self._eval(a, env) for a in node.args]
        kwargs = {k.arg: self._eval(k.value, env) for k in node.keywords if k.arg}
        first = args[0] if args else None
        if isinstance(func, ast.Attribute) and isinstance(self._eval(func.value, env), _Bld):
            kinds = {
                "create_ns3_module": "module",
                "create_ns3_module_test_library": "test",
                "create_ns3_program": "program",
            }
            if func.attr in kinds:
                if not isinstance(first, str):
                    self._problem(f"line {node.lineno}: {func.attr}() name is not a literal")
                obj = _WafObject(kinds[func.attr], first, node.lineno)
                self.objects.append(obj)
                return obj
            if func.attr == "recurse":
                self.recursed.append(first)
            return UNKNOWN
        if isinstance(self._eval(func, env), _Bld):
            features = kwargs.get("features")
            kind = "headers" if features == "ns3header" else "other"
            obj = _WafObject(kind, None, node.lineno)
            self.objects.append(obj)
            return obj
        return UNKNOWN


def _add(left, right):
    if isinstance(left, list) and isinstance(right, list):
        return left + right
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    return UNKNOWN


def _source_list(obj):
    """The .source of a task generator as a list of str (a single string counts as one entry)."""
    value, _ = obj.attrs.get("source", (None, None))
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


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


def _compare(cmake_entries, waf_entries, list_name, waf_where):
    out = []
    for entry in sorted(set(cmake_entries) - set(waf_entries)):
        out.append(
            Discrepancy(entry, CMAKE_ONLY, f"{list_name} vs {waf_where}", f"in {list_name} "
                        f"({CMAKE_FILE}) but not in {waf_where}")
        )
    for entry in sorted(set(waf_entries) - set(cmake_entries)):
        out.append(
            Discrepancy(entry, WSCRIPT_ONLY, f"{list_name} vs {waf_where}", f"in {waf_where} but "
                        f"not in {list_name} ({CMAKE_FILE})")
        )
    return out


def _duplicates(entries, where, subject_fmt="{}"):
    seen, out = set(), []
    for entry in entries:
        if entry in seen:
            out.append(Discrepancy(subject_fmt.format(entry), DUPLICATE, where, "listed twice"))
        seen.add(entry)
    return out


def _check_wscripts(root, lists):
    out = []
    wscript = root / WSCRIPT_FILE
    if not wscript.is_file():
        return [Discrepancy(WSCRIPT_FILE, MISSING, "waf build", "the waf build script is missing")]
    reader = WscriptReader(wscript.read_text(encoding="utf-8"), WSCRIPT_FILE).run()
    out += reader.problems
    # (kind, CMake list, how the wscript names it)
    targets = (
        ("module", "CRUX_SOURCES", "wscript module.source"),
        ("test", "CRUX_TEST_SOURCES", "wscript module_test.source"),
        ("headers", "CRUX_HEADERS", "wscript headers.source"),
    )
    for kind, list_name, waf_where in targets:
        objs = reader.of_kind(kind)
        if len(objs) != 1:
            out.append(
                Discrepancy(WSCRIPT_FILE, PARSE, waf_where, f"expected one {kind} task generator "
                            f"in build(), found {len(objs)}")
            )
            continue
        obj = objs[0]
        if kind in ("module", "test") and obj.name != "crux":
            out.append(Discrepancy(WSCRIPT_FILE, PARSE, waf_where,
                                   f"module name is {obj.name!r}, expected 'crux'"))
        if kind == "headers" and obj.attrs.get("module", (None,))[0] != "crux":
            out.append(Discrepancy(WSCRIPT_FILE, PARSE, waf_where, "headers.module is not 'crux'"))
        entries = _source_list(obj)
        if entries is None:
            if "source" not in obj.attrs:
                out.append(Discrepancy(WSCRIPT_FILE, PARSE, waf_where, ".source is never set"))
            continue  # an unreadable value was already reported
        out += _duplicates(entries, waf_where)
        cmake_entries = list(lists.get(list_name, []))
        for variant, parent in VARIANT_LISTS.items():
            if parent == list_name:
                cmake_entries += lists.get(variant, [])
        out += _compare(cmake_entries, entries, list_name, waf_where)

    if "examples" not in reader.recursed:
        out.append(Discrepancy(WSCRIPT_FILE, PARSE, "waf build", "build() never calls "
                               "bld.recurse('examples')"))
    examples_ws = root / EXAMPLES_WSCRIPT_FILE
    if not examples_ws.is_file():
        out.append(Discrepancy(EXAMPLES_WSCRIPT_FILE, MISSING, "waf build",
                               "the examples waf script is missing"))
        return out
    ex_reader = WscriptReader(examples_ws.read_text(encoding="utf-8"), EXAMPLES_WSCRIPT_FILE).run()
    out += ex_reader.problems
    names = []
    for prog in ex_reader.of_kind("program"):
        if not isinstance(prog.name, str):
            continue  # reported by the reader
        names.append(prog.name)
        sources = _source_list(prog)
        if sources != [prog.name + ".cc"]:
            out.append(
                Discrepancy(f"examples/{prog.name}.cc", PARSE, "examples/wscript",
                            f"program {prog.name!r} (line {prog.lineno}) has source {sources!r}, "
                            f"expected ['{prog.name}.cc']")
            )
    out += _duplicates(names, "examples/wscript programs", "examples/{}.cc")
    ex_where = "examples/wscript programs"
    for name in sorted(set(lists.get("CRUX_EXAMPLES", [])) - set(names)):
        out.append(Discrepancy(f"examples/{name}.cc", CMAKE_ONLY, f"CRUX_EXAMPLES vs {ex_where}",
                               f"in CRUX_EXAMPLES ({CMAKE_FILE}) but not built by {ex_where}"))
    for name in sorted(set(names) - set(lists.get("CRUX_EXAMPLES", []))):
        out.append(Discrepancy(f"examples/{name}.cc", WSCRIPT_ONLY, f"CRUX_EXAMPLES vs {ex_where}",
                               f"built by {ex_where} but not in CRUX_EXAMPLES ({CMAKE_FILE})"))
    return out


def check(root):
    """Run every check on the module tree at ``root``; returns a sorted list of Discrepancy."""
    root = Path(root)
    cmake = root / CMAKE_FILE
    if not cmake.is_file():
        return [Discrepancy(CMAKE_FILE, MISSING, "file lists", "the CMake file lists are missing")]
    lists, out = parse_cmake_lists(cmake.read_text(encoding="utf-8"))
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
set(CRUX_TEST_SOURCES
    test/dev-test-suite.cc
)
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

_FAKE_WSCRIPT = """\
SCHED = [
    'model/scheduling/sched.cc',
]
DRIVERS = ['drivers/cases.cc']
SOURCES = SCHED + DRIVERS + [
    'model/fabric/dev.cc',
    'helper/dev-helper.cc',
]
HEADERS = ['model/scheduling/sched.h', 'model/fabric/dev.h', 'helper/dev-helper.h']


def configure(conf):
    pass


def build(bld):
    if 'crux' in bld.env['MODULES_NOT_BUILT']:
        return
    module = bld.create_ns3_module('crux', ['core', 'network'])
    module.source = SOURCES
    module_test = bld.create_ns3_module_test_library('crux')
    module_test.source = [
        'test/dev-test-suite.cc',
    ]
    headers = bld(features='ns3header')
    headers.module = 'crux'
    headers.source = HEADERS
    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
"""

_FAKE_EXAMPLES_WSCRIPT = """\
EXAMPLES = ['dev-example']


def build(bld):
    for name in EXAMPLES:
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

_FAKE_TREE = {
    CMAKE_FILE: _FAKE_CMAKE,
    WSCRIPT_FILE: _FAKE_WSCRIPT,
    EXAMPLES_WSCRIPT_FILE: _FAKE_EXAMPLES_WSCRIPT,
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


def _delete(path):
    return lambda root: (root / path).unlink()


# (case name, mutations, expected {(kind, subject)})
SELF_TEST_CASES = [
    ("consistent tree", [], set()),
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
            "model/scheduling/other.cc\n"),
      _edit(WSCRIPT_FILE, "    'model/fabric/dev.cc',\n", "    'model/fabric/dev.cc',\n    "
            "'model/scheduling/other.cc',\n")],
     {(WRONG_LIST, "model/scheduling/other.cc")}),
    ("drivers source in the model library CRUX_PURE_SOURCES",
     [_edit(CMAKE_FILE, "    model/scheduling/sched.cc\n", "    model/scheduling/sched.cc\n"
            "    drivers/cases.cc\n"),
      _edit(CMAKE_FILE, "set(CRUX_PURE_DRIVER_SOURCES\n    drivers/cases.cc\n)",
            "set(CRUX_PURE_DRIVER_SOURCES\n)")],
     {(WRONG_LIST, "drivers/cases.cc")}),
    ("model source in CRUX_PURE_DRIVER_SOURCES",
     [_edit(CMAKE_FILE, "    model/scheduling/sched.cc\n)", ")"),
      _edit(CMAKE_FILE, "    drivers/cases.cc\n)", "    drivers/cases.cc\n"
            "    model/scheduling/sched.cc\n)"),
      _edit(WSCRIPT_FILE, "    'model/scheduling/sched.cc',\n]", "]"),
      _edit(WSCRIPT_FILE, "DRIVERS = ['drivers/cases.cc']",
            "DRIVERS = ['drivers/cases.cc', 'model/scheduling/sched.cc']")],
     {(WRONG_LIST, "model/scheduling/sched.cc")}),
    ("listed pure driver source missing", [_delete("drivers/cases.cc")],
     {(MISSING, "drivers/cases.cc")}),
    ("header listed as a source",
     [_edit(CMAKE_FILE, "    helper/dev-helper.cc\n", "    helper/dev-helper.cc\n"
            "    helper/dev-helper.h\n"),
      _edit(WSCRIPT_FILE, "    'helper/dev-helper.cc',\n", "    'helper/dev-helper.cc',\n"
            "    'helper/dev-helper.h',\n")],
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
    ("wscript lacks a source", [_edit(WSCRIPT_FILE, "    'helper/dev-helper.cc',\n", "")],
     {(CMAKE_ONLY, "helper/dev-helper.cc")}),
    ("wscript has an extra header",
     [_edit(WSCRIPT_FILE, "'helper/dev-helper.h']", "'helper/dev-helper.h', 'model/fabric/x.h']")],
     {(WSCRIPT_ONLY, "model/fabric/x.h")}),
    ("wscript test sources differ",
     [_edit(WSCRIPT_FILE, "'test/dev-test-suite.cc'", "'test/device-test-suite.cc'")],
     {(CMAKE_ONLY, "test/dev-test-suite.cc"), (WSCRIPT_ONLY, "test/device-test-suite.cc")}),
    ("examples/wscript lacks an example",
     [_edit(EXAMPLES_WSCRIPT_FILE, "EXAMPLES = ['dev-example']", "EXAMPLES = []")],
     {(CMAKE_ONLY, "examples/dev-example.cc")}),
    ("examples/wscript has an extra example",
     [_edit(EXAMPLES_WSCRIPT_FILE, "['dev-example']", "['dev-example', 'ghost']")],
     {(WSCRIPT_ONLY, "examples/ghost.cc")}),
    ("examples/wscript program with a wrong source",
     [_edit(EXAMPLES_WSCRIPT_FILE, "name + '.cc'", "'main.cc'")],
     {(PARSE, "examples/dev-example.cc")}),
    ("CMake list changed, wscript not",
     [_write("model/fabric/new.cc"),
      _edit(CMAKE_FILE, "    model/fabric/dev.cc\n", "    model/fabric/dev.cc\n    "
            "model/fabric/new.cc\n")],
     {(CMAKE_ONLY, "model/fabric/new.cc")}),
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
            "model/fabric/sched.h\n"),
      _edit(WSCRIPT_FILE, "'model/fabric/dev.h',",
            "'model/fabric/dev.h', 'model/fabric/sched.h',")],
     {(HEADER_CLASH, "model/fabric/sched.h")}),
    ("undefined CMake variable",
     [_edit(CMAKE_FILE, "${CRUX_PURE_SOURCES}", "${CRUX_PURE_SOURCES}\n    "
            "${CRUX_NOPE}")],
     {(PARSE, CMAKE_FILE)}),
    ("wscript source not statically readable",
     [_edit(WSCRIPT_FILE, "module.source = SOURCES", "module.source = glob('model/*.cc')")],
     {(PARSE, WSCRIPT_FILE)}),
    ("wscript not recursing into examples",
     [_edit(WSCRIPT_FILE, "        bld.recurse('examples')\n", "        pass\n")],
     {(PARSE, WSCRIPT_FILE)}),
    ("wscript missing", [_delete(WSCRIPT_FILE)], {(MISSING, WSCRIPT_FILE)}),
]


def self_test():
    """Run check() on a fresh fake tree per case; return the number of failed cases."""
    failed = 0
    for name, mutations, expected in SELF_TEST_CASES:
        tmp = Path(tempfile.mkdtemp(prefix="crux-check-file-lists-"))
        try:
            for path, text in _FAKE_TREE.items():
                _write(path, text)(tmp)
            for mutate in mutations:
                mutate(tmp)
            found = check(tmp)
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
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on temporary fake module trees")
    args = parser.parse_args(argv)
    if args.self_test:
        return 1 if self_test() else 0
    root = Path(args.root)
    if not root.is_dir():
        parser.error(f"{root} is not a directory")
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-file-lists: {len(problems)} discrepancies in {root}")
        return 1
    print(f"check-file-lists: OK ({root}: CMake lists, wscripts and files on disk agree)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
