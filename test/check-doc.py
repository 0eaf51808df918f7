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
"""Build every doc/*.rst with docutils, warnings as errors (ctest check-doc).

For each file:

* docutils parses it and applies its transforms (references resolved, targets checked) with
  every message of level WARNING or above counted as an error; the first one is reported as
  ``file:line``. ns-3 builds its module docs with Sphinx; two Sphinx directives the docs use are
  registered here: ``highlight`` (no effect) and ``literalinclude`` (the file, relative to the
  .rst, read and shown as a literal block: a missing file or a ``start-after`` text that is not
  in it is an error). Code blocks are not highlighted (no Pygments needed).
* the heading hierarchy: the file opens with the declaration comment of ns-3's convention
  (``.. Heading hierarchy ...`` listing one adornment character per level, e.g. ``-`` chapter,
  ``*`` section, ``=`` subsection, ``#`` paragraph), and the adornments appear in the document
  in that order: a level is used only below the one declared above it. docutils alone accepts
  any order (it takes levels from first use), which is how a ``#`` used before ``=`` once nested
  "Design" under "Layers and data flow".
* links to other files (``text <validation.rst#measured-speed>`_``): the file exists, and for
  an .rst with a ``#fragment`` the fragment is the id of a section or target of that file (the
  anchor GitHub and docutils give it).

Usage::

    check-doc.py [FILE.rst ...]   # default: every doc/*.rst of the module
    check-doc.py --self-test      # prove on small broken files that each kind of error is caught

Exit status: 0 clean (or self-test passed), 1 a warning or error (or a self-test case failed),
77 docutils is not installed (ctest reports the test as skipped; scripts/setup.sh installs it
into build/venv).
"""

import argparse
import io
import os
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

SKIP = 77
ROOT = Path(__file__).resolve().parent.parent

try:
    import docutils
    import docutils.core
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives
except ImportError:  # reported in main()
    docutils = None

# docutils' section adornment characters (any of them may underline a title)
ADORNMENT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
MESSAGE = re.compile(r"^(?P<where>.*?):(?P<line>\d+)?:? ?\((?P<kind>WARNING|ERROR|SEVERE)/\d\) ")


if docutils is not None:

    class Highlight(Directive):
        """Sphinx's ``.. highlight:: lang``: sets the default language; nothing to check here."""

        required_arguments = 1
        option_spec = {"linenothreshold": directives.unchanged}

        def run(self):
            return []

    class LiteralInclude(Directive):
        """Sphinx's ``.. literalinclude:: path`` (relative to the .rst), as a literal block."""

        required_arguments = 1
        final_argument_whitespace = True
        option_spec = {
            "language": directives.unchanged,
            "start-after": directives.unchanged_required,
            "end-before": directives.unchanged_required,
        }

        def run(self):
            source, _ = self.state_machine.get_source_and_line(self.lineno)
            path = Path(source).resolve().parent / self.arguments[0]
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise self.error(f'literalinclude: cannot read "{self.arguments[0]}" ({path}): '
                                 f"{e.strerror}")
            for option, keep_after in (("start-after", True), ("end-before", False)):
                if option in self.options:
                    marker = self.options[option]
                    where = text.find(marker)
                    if where < 0:
                        raise self.error(f'literalinclude: {option} text "{marker}" is not in '
                                         f'"{self.arguments[0]}"')
                    text = text[where + len(marker):] if keep_after else text[:where]
            node = nodes.literal_block(text, text, source=str(path))
            if "language" in self.options:
                node["language"] = self.options["language"]
            return [node]

    directives.register_directive("highlight", Highlight)
    directives.register_directive("literalinclude", LiteralInclude)


def build(path):
    """Parse one file with docutils. Returns (doctree, [(line, message)])."""
    stream = io.StringIO()
    settings = {
        "_disable_config": True,  # no docutils.conf of the user or the machine
        "report_level": 2,  # report WARNING and above ...
        "halt_level": 5,  # ... and never stop: every message is collected
        "exit_status_level": 5,
        "warning_stream": stream,
        "syntax_highlight": "none",
        "input_encoding": "utf-8",
        "file_insertion_enabled": True,
        "raw_enabled": False,
    }
    doctree = docutils.core.publish_doctree(source=path.read_text(encoding="utf-8"),
                                            source_path=str(path), settings_overrides=settings)
    messages = []
    for text in stream.getvalue().splitlines():
        m = MESSAGE.match(text)
        if m:
            messages.append([m.group("line") or "?", text])
        elif messages and text.strip():
            messages[-1][1] += "\n" + text  # the offending input docutils quotes
    # the doctree keeps the same messages: should the stream's format ever differ from MESSAGE,
    # none is lost
    kept = [m for m in doctree.findall(nodes.system_message) if m["level"] >= 2]
    if len(kept) > len(messages):
        messages = [[str(m.get("line") or "?"),
                     f"{path}:{m.get('line') or '?'}: ({m['type']}/{m['level']}) {m.astext()}"]
                    for m in kept]
    return doctree, messages


def titles(text):
    """Section titles of an rst source: [(line number, adornment char, title)]."""
    lines = text.splitlines()
    out = []
    for i in range(1, len(lines)):
        under, title = lines[i], lines[i - 1]
        if (len(under) >= 3 and under[0] in ADORNMENT and under == under[0] * len(under)
                and title.strip() and not title[0].isspace()
                and not (len(title) >= 3 and title == title[0] * len(title))
                and (i < 2 or not lines[i - 2].strip())):
            out.append((i, under[0], title.strip()))
    return out


def declared_levels(text):
    """The adornment characters of the ``.. Heading hierarchy`` comment at the top, or None."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith(".. Heading hierarchy"):
        return None
    levels = []
    for line in lines[1:]:
        m = re.match(r"^ +(\S)\1{2,}\s", line)
        if not m:
            break
        levels.append(m.group(1))
    return levels or None


def check_headings(path, text):
    """Heading order against the declaration; returns [(line, message)]."""
    declared = declared_levels(text)
    if declared is None:
        return [("1", f"{path}:1: no heading-hierarchy declaration at the top (a comment "
                      "'.. Heading hierarchy (ns-3 convention):' with one line per level, "
                      "e.g. '   ------------- Chapter')")]
    out = []
    seen = []
    for line, char, title in titles(text):
        if char not in declared:
            out.append((str(line), f"{path}:{line}: title '{title}' is underlined with "
                                   f"'{char}', which the declaration ({' '.join(declared)}) "
                                   "does not list"))
            continue
        if char not in seen:
            expected = declared[len(seen)]
            if char != expected:
                out.append((str(line), f"{path}:{line}: title '{title}' uses '{char}' "
                                       f"(level {declared.index(char) + 1}) before any title "
                                       f"used '{expected}' (level {len(seen) + 1}): the levels "
                                       f"would nest as {' '.join(seen + [char])}, not as "
                                       f"declared ({' '.join(declared)})"))
                continue
            seen.append(char)
    return out


_ids = {}


def ids_of(path):
    """Every id (section, target) of an .rst file, parsed once."""
    if path not in _ids:
        doctree, _ = build(path)
        _ids[path] = {i for node in doctree.findall(nodes.Element) for i in node["ids"]}
    return _ids[path]


def check_links(path, doctree):
    """Links to other files: the file exists; an .rst fragment is an id of it."""
    out = []
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri")
        if not uri:
            continue
        parts = urlsplit(uri)
        if parts.scheme or parts.netloc or uri.startswith("mailto:"):
            continue
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        line = ref.line or (ref.parent.line if ref.parent is not None else None) or "?"
        if not target.exists():
            out.append((str(line), f"{path}:{line}: link '{uri}': {target} does not exist"))
        elif parts.fragment and target.suffix == ".rst":
            if unquote(parts.fragment) not in ids_of(target):
                out.append((str(line), f"{path}:{line}: link '{uri}': {target.name} has no "
                                       f"section or target with the id '{parts.fragment}'"))
    return out


def check(files):
    """Checks the files; prints every problem, the first one first. Returns the count."""
    problems = 0
    for path in files:
        path = Path(path).resolve()
        text = path.read_text(encoding="utf-8")
        doctree, messages = build(path)
        found = messages + check_headings(path, text) + check_links(path, doctree)
        found.sort(key=lambda f: int(f[0]) if str(f[0]).isdigit() else 1 << 30)  # by line
        if found:
            first = found[0]
            print(f"check-doc: {path}: {len(found)} problem(s); the first at line {first[0]}:")
            for _, message in found:
                print(message)
        else:
            print(f"check-doc: {path}: ok ({len(text.splitlines())} lines)")
        problems += len(found)
    return problems


# --- self-test: a clean pair of files, then one broken file per kind of error -----------------

GOOD = """\
.. Heading hierarchy (ns-3 convention):
   ------------- Chapter
   ************* Section (#.#)
   ============= Subsection (#.#.#)
   ############# Paragraph (no number)

.. highlight:: cpp

Title
-----

Section
*******

Sub
===

Para
####

Text with a `link <other.rst#other-section>`__ and `Sub`_.

.. literalinclude:: listing.txt
   :start-after: BEGIN

.. code-block:: json

  {"a": 1}
"""

OTHER = """\
.. Heading hierarchy (ns-3 convention):
   ------------- Chapter
   ************* Section (#.#)

Other
-----

Other section
*************
"""

BROKEN = {
    # docutils warnings and errors
    "short-underline.rst": (GOOD.replace("Para\n####", "Paragraph\n#####"),
                            "Title underline too short"),
    "unknown-target.rst": (GOOD.replace("`Sub`_", "`Nosuch`_"), "Unknown target name"),
    "bad-list-table.rst": (GOOD + "\n.. list-table::\n\n   * - a\n   * - b\n     - c\n",
                           "uniform two-level bullet list"),
    "missing-include.rst": (GOOD.replace("listing.txt", "nosuch.txt"), "cannot read"),
    "start-after.rst": (GOOD.replace(":start-after: BEGIN", ":start-after: NOSUCH"),
                        "is not in"),
    "unknown-directive.rst": (GOOD + "\n.. toctree::\n\n   other\n", "Unknown directive type"),
    # the heading hierarchy (docutils itself accepts these)
    "no-declaration.rst": ("\n".join(GOOD.splitlines()[6:]) + "\n", "no heading-hierarchy"),
    "wrong-order.rst": (GOOD.replace("Sub\n===\n\nPara\n####", "Para\n####\n\nSub\n==="),
                        "before any title used '='"),
    "undeclared.rst": (GOOD + "\nMore\n~~~~\n", "does not list"),
    # links to other files
    "missing-file.rst": (GOOD.replace("other.rst#", "nosuch.rst#"), "does not exist"),
    "missing-anchor.rst": (GOOD.replace("#other-section", "#nosuch-section"),
                           "no section or target with the id 'nosuch-section'"),
}


def self_test():
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="crux-check-doc-") as tmp:
        tmp = Path(tmp)
        (tmp / "other.rst").write_text(OTHER, encoding="utf-8")
        (tmp / "listing.txt").write_text("header\nBEGIN\nbody\n", encoding="utf-8")
        cases = [("good.rst", GOOD, None)] + [(n, t, e) for n, (t, e) in BROKEN.items()]
        for name, text, expected in cases:
            (tmp / name).write_text(text, encoding="utf-8")
            out = io.StringIO()
            stdout, sys.stdout = sys.stdout, out
            try:
                count = check([tmp / name])
            finally:
                sys.stdout = stdout
            report = out.getvalue()
            if expected is None:
                ok = count == 0
                why = "expected no problem" if not ok else ""
            else:
                # fails, names the file and a line, and says what is wrong
                ok = (count > 0 and re.search(re.escape(name) + r":\d+: ", report) is not None
                      and expected in report)
                why = f"expected a problem naming {name}:<line> and '{expected}'"
            if ok:
                passed += 1
            else:
                failed += 1
                print(f"check-doc self-test: {name}: FAILED ({why}); the check printed:")
                print(report)
    print(f"check-doc self-test: {passed} passed, {failed} failed")
    return failed == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="rst files (default: every doc/*.rst)")
    parser.add_argument("--self-test", action="store_true",
                        help="check that broken files are caught")
    args = parser.parse_args()
    if docutils is None:
        print(f"CRUX_DOCUTILS_UNAVAILABLE: {sys.executable} cannot import docutils; run "
              "scripts/setup.sh (installs it into build/venv) and re-run cmake")
        return SKIP
    if args.self_test:
        return 0 if self_test() else 1
    files = args.files or sorted((ROOT / "doc").glob("*.rst"))
    if not files:
        print(f"check-doc: no .rst file under {ROOT / 'doc'}")
        return 1
    problems = check(files)
    print(f"check-doc: docutils {docutils.__version__}: {len(files)} file(s), "
          f"{problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
