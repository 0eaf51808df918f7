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
"""Fuzz the scenario reader and the options of crux-experiment and crux-trace-run with bad values.

The cases are generated, not written:

* **Scenario fields.** ``crux-experiment --dryRun`` prints the scenario as it would run
  (``Scenario::ToJson()``: every field, defaults included) for ``test/fuzz/base-scenario.json``.
  Every leaf of that JSON (``topology.linkDelay``, ``jobs[2].parallelism.tp``, ...) is replaced,
  one at a time, by every bad value of its kind (wrong JSON type, empty, negative, zero, huge:
  2^31, 2^32 + 3, 2^63, 2^64, 1e308, fractions, NaN/inf spellings, spaces, bad units, unicode,
  control characters, 1000 characters), and in the text: a number beyond a double (1e400) and
  the key given twice in its object (both refused, naming the field). A field added to the
  scenario is fuzzed without a new case, as soon as ToJson() writes it.
* **Options.** The options each program lists under ``--PrintHelp`` get every bad option value.

Each case runs the program with ``--dryRun`` (check everything, simulate nothing) in an empty
working directory and asserts:

* exit status 0 (the value is accepted) or 1 — never a crash, an abort or a hang (30 s);
* on status 1: exactly one line on stderr, "<program>: error: ...", naming the field (its key)
  or the option (``--name``);
* for values that cannot be right (a wrong JSON type, a negative or fractional count, a count
  beyond 32 bits, a malformed rate/time/size, an unknown name): status 1;
* nothing left in the working directory or the output directory.

Usage: fuzz-bad-input.py <dir of the programs> <module root> [--quick]
(--quick: a third of the values, for the sanitizer build.)  Standard library only.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 30

# values of each kind; (value, must_fail)
BAD_STRINGS_UNIT = ["abc", "1usx", "NaNs", "1 us", "100 Gbps", "-1us", "1e400s", "nan", "inf",
                    " 1us", "1us ", "1..5us", "1e", "\u00b5s", "0x10Gbps", "1,5Gbps", "-5Gbps",
                    "99999999999999999999999999Gbps", "1e300y", "0.0001bps"]
BAD_STRINGS_ANY = ["", " ", "abc", "\u00fc\u00f1\u00ee\u00e7\u00f8d\u00e9", "a\nb", "\t", "\u0000",
                   "x" * 1000]
BAD_INTS = [-1, 0, 1.5, 2 ** 31, 2 ** 32 + 3, 2 ** 63, 2 ** 64, 1e308, -1e308, -0.0, 1e2]
BAD_FLOATS = [-1, 0, -1e-300, 1e308, -1e308, 2 ** 63, 1e-320]
WRONG_TYPES = [None, [], {}, True, "1", 1, [1], {"a": 1}]


class Raw:
    """A value written into the scenario text as it is: JSON that json.dumps cannot write."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


BIG_NUMBER = Raw("1e400")  # beyond a double: nlohmann's own message had no field
DUPLICATE = Raw("<the key given twice>")  # the leaf's key again, in the same object

UNIT_RE = re.compile(r"^[0-9.]+(bps|Gbps|Mbps|Kbps|us|ns|ms|s|B|KiB|MiB|GiB|KB|MB|GB)$")
FREE_TEXT = {"name", "outputDir"}  # any non-empty text is valid there
# an error naming some field: "<file>: jobs[2].hosts: ...", "--windowStart: ...", "trace (...): "
FIELD_RE = re.compile(r"error: (\S+: )?([A-Za-z][\w.\[\]]*|--\w+|trace \([^)]*\)): ")


def leaves(node, path=()):
    """(path tuple, value) of every leaf; a list of scalars is a leaf and its items are too."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, path + (k,))
    elif isinstance(node, list) and node and isinstance(node[0], (dict, list)):
        for i, v in enumerate(node):
            yield from leaves(v, path + (i,))
    else:
        yield path, node
        if isinstance(node, list):
            for i, v in enumerate(node):
                yield path + (i,), v


def path_name(path):
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + p
    return out


def set_path(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def same_json_type(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return True
    return type(a) is type(b)


def scenario_cases(base, quick):
    """(path, value, must_fail) for every leaf and bad value of its kind."""
    for path, orig in leaves(base):
        key = [p for p in path if isinstance(p, str)][-1]
        values = []
        for v in WRONG_TYPES:
            if not same_json_type(v, orig):
                values.append((v, True))
        if isinstance(orig, bool):
            pass
        elif isinstance(orig, int):
            for v in BAD_INTS:
                neg_or_frac = (isinstance(v, float) and (v != int(v) or abs(v) >= 2 ** 64
                                                         or v == 1e2)) or v < 0
                values.append((v, neg_or_frac or v >= 2 ** 32))
        elif isinstance(orig, float):
            values += [(v, False) for v in BAD_FLOATS]
        if isinstance(orig, (int, float)) and not isinstance(orig, bool):
            values.append((BIG_NUMBER, True))
        if isinstance(path[-1], str):
            values.append((DUPLICATE, True))
        elif isinstance(orig, str):
            unit = bool(UNIT_RE.match(orig))
            for v in BAD_STRINGS_ANY:
                values.append((v, v == "" or key not in FREE_TEXT))
            if unit:
                values += [(v, True) for v in BAD_STRINGS_UNIT]
        if quick:
            values = values[::3]
        for v, must in values:
            yield path, v, must


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8",
                                                                                  "replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


class Checker:
    def __init__(self):
        self.cases = 0
        self.failures = []

    def check(self, label, program, cmd, cwd, names, must_fail, allowed_files=()):
        self.cases += 1
        rc, _out, err = run(cmd, cwd)
        problems = []
        lines = err.splitlines()
        if rc not in (0, 1):
            problems.append("exit status %s (expected 0 or 1): %s" % (rc, err.strip()[:300]))
        elif rc == 1:
            if len(lines) != 1:
                problems.append("%d lines on stderr, expected 1: %r" % (len(lines), err[:400]))
            elif not lines[0].startswith(program + ": error: "):
                problems.append("stderr is not '%s: error: ...': %r" % (program, lines[0]))
            elif not any(n in lines[0] for n in names) and (must_fail or not FIELD_RE.search(
                    lines[0])):
                # a value that may be right in itself can conflict with another field, which
                # the error then names
                problems.append("error does not name %s: %r" % (" or ".join(names), lines[0]))
        elif must_fail:
            problems.append("accepted (exit 0), expected exit 1")
        left = sorted(set(os.listdir(cwd)) - set(allowed_files))
        if left:
            problems.append("left in the working directory: %s" % left)
            for f in left:
                p = os.path.join(cwd, f)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
        if problems:
            self.failures.append("%s: %s" % (label, "; ".join(problems)))


def program_options(binary):
    """(name, default or None) of each option in the program's --PrintHelp."""
    out = subprocess.run([binary, "--PrintHelp"], stdout=subprocess.PIPE, check=True).stdout
    opts = []
    section = False
    for line in out.decode().splitlines():
        if line.startswith("Program Options:"):
            section = True
            continue
        if section and not line.startswith("    --"):
            if line.strip() == "":
                continue
            break
        m = re.match(r"^    --(\w+):\s+.*?(?:\[([^\]]*)\])?$", line)
        if section and m:
            opts.append((m.group(1), m.group(2)))
    return opts


OPTION_VALUES = ["", "abc", "-1", "1.5", "nan", "inf", "-inf", "1e400", "18446744073709551616",
                 "4294967297", " 1", "1 x", "0x10", "\u00fc", "a\nb", "100 Gbps", "1usx"]


def option_cases(opts, skip, quick):
    for name, default in opts:
        if name in skip:
            continue
        boolean = default in ("true", "false")
        numeric = default is not None and re.match(r"^-?[0-9.]+(e[-+]?[0-9]+)?$", default)
        values = OPTION_VALUES[::3] if quick else OPTION_VALUES
        for v in values:
            if boolean:
                must = v != ""
            elif numeric:
                # integers and numbers look alike in the help: only what neither accepts
                must = v not in ("4294967297", "-1", "1.5", "18446744073709551616")
            else:
                must = v == ""
            yield name, v, must


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    bindir, root = os.path.abspath(args[0]), os.path.abspath(args[1])
    exp = os.path.join(bindir, "crux-experiment")
    trace = os.path.join(bindir, "crux-trace-run")
    base_file = os.path.join(root, "test", "fuzz", "base-scenario.json")
    checker = Checker()
    work = tempfile.mkdtemp(prefix="crux-fuzz-")
    try:
        cwd = os.path.join(work, "cwd")
        os.mkdir(cwd)
        p = subprocess.run([exp, "--scenario=" + base_file, "--dryRun", "--outputDir=out"],
                           cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            print("FAIL: the base scenario does not pass --dryRun: " + p.stderr.decode())
            return 1
        base = json.loads(p.stdout)
        n_fields = len(list(leaves(base)))
        scen = os.path.join(work, "case.json")
        for path, value, must in scenario_cases(base, quick):
            doc = json.loads(json.dumps(base))
            doc["outputDir"] = "out"
            marker = "@@FUZZ-RAW@@"
            set_path(doc, path, marker if isinstance(value, Raw) else value)
            if path == ("outputDir",):
                doc["outputDir"] = marker if isinstance(value, Raw) else value
            text = json.dumps(doc)
            if value is DUPLICATE:
                # the key twice: the original value first, the marker's value second
                key = json.dumps(path[-1])
                orig = json.dumps(dict(leaves(base))[path])
                text = text.replace(key + ": " + json.dumps(marker),
                                    key + ": " + orig + ", " + key + ": " + orig)
            elif isinstance(value, Raw):
                text = text.replace(json.dumps(marker), value.text)
            with open(scen, "w") as f:
                f.write(text)
            key = [p for p in path if isinstance(p, str)][-1]
            shown = repr(value) if isinstance(value, Raw) else json.dumps(value)[:40]
            checker.check("scenario %s = %s" % (path_name(path), shown),
                          "crux-experiment", [exp, "--scenario=" + scen, "--dryRun"], cwd,
                          [key, "malformed JSON"], must)
        n_scen = checker.cases
        # options of both programs
        runs = [
            (exp, "crux-experiment", ["--scenario=" + base_file, "--dryRun", "--outputDir=out"],
             {"dryRun", "scenario"}),
            (trace, "crux-trace-run", ["--days=0.05", "--dryRun", "--outputDir=out"],
             {"dryRun", "days"}),
        ]
        n_opts = 0
        for binary, program, base_args, skip in runs:
            opts = program_options(binary)
            n_opts += len(opts)
            for name, value, must in option_cases(opts, skip, quick):
                args_ = [a for a in base_args if not a.startswith("--%s=" % name)]
                checker.check("%s --%s=%r" % (program, name, value[:20]), program,
                              [binary] + args_ + ["--%s=%s" % (name, value)], cwd,
                              ["--" + name], must)
            # unknown options, non-options, empty names
            for bad in ["--foo=1", "--foo", "-", "--", "stray", "--=1", "--ns3::Nope::X=1",
                        "--ns3::RdmaNic::RetransmitTimeout=abc", "--RngRun=x",
                        "--ns3::QbbNetDevice::DataRate=100 Gbps"]:
                checker.check("%s %r" % (program, bad), program, [binary] + base_args + [bad],
                              cwd, [bad.split("=")[0] if bad.startswith("--") and bad != "--"
                                    else repr(bad)[1:-1], "'"], True)
        print("fuzz-bad-input: %d scenario fields x bad values = %d cases, %d options -> %d "
              "cases; %d failures" % (n_fields, n_scen, n_opts, checker.cases - n_scen,
                                      len(checker.failures)))
        for f in checker.failures:
            print("FAIL " + f)
        return 1 if checker.failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
