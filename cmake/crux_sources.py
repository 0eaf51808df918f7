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
"""The one reader of cmake/crux-sources.cmake outside CMake.

cmake/crux-sources.cmake is the only place the module's files are listed. CMake includes it;
the waf build (wscript, examples/wscript) and the checks (test/check-file-lists.py,
test/check-layering.py) read it with :func:`read_lists`. test/check-file-lists.py verifies that
this reader gives exactly the lists CMake itself evaluates from the file.

The reader is strict: it understands only what the file uses, and anything else is an error
naming the file and line (never a silently empty or shortened list):

* blank lines and ``#`` line comments (also after an item); not bracket comments ``#[[ ]]``;
* ``set(NAME item ...)`` blocks, items one per line or space-separated, the ``)`` on the last
  item's line or its own; ``set`` in any letter case, as in CMake;
* items: unquoted paths and names of letters, digits and ``_ . / + -``, or exactly ``${OTHER}``,
  the items of a list set earlier in the file;
* each list is set once, with at least one item (``set(NAME)`` unsets NAME in CMake).

Not understood (an error): any other command, quoted or bracket arguments, ``;`` and escapes,
``${...}`` inside an item or naming a variable the file does not set, ``CACHE`` /
``PARENT_SCOPE``, generator expressions.

Standard library only; no imports from waf. Usage as a program, to see what it reads::

    python3 cmake/crux_sources.py [cmake/crux-sources.cmake]   # NAME item item ... per line
"""

import os
import re
import sys

_SET_OPEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ITEM = re.compile(r"[A-Za-z0-9_./+-]+\Z")
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}\Z")
_TOKEN = re.compile(r"[()]|[^\s()]+")
_KEYWORDS = ("CACHE", "PARENT_SCOPE", "FORCE", "INTERNAL")


class FileListError(Exception):
    """Something in the file the reader does not understand; str() is ``file:line: what``."""


def parse_lists(text, origin="cmake/crux-sources.cmake"):
    """The ``set()`` lists of ``text``: dict NAME -> list of str, in file order.

    ``origin`` names the file in error messages. Raises FileListError on anything not
    understood.
    """
    lists = {}
    where_set = {}
    current = None  # (name, items, line of the set) while inside a set( ... ) block

    def fail(lineno, what):
        raise FileListError("%s:%d: %s" % (origin, lineno, what))

    for lineno, raw in enumerate(text.splitlines(), start=1):
        hash_at = raw.find("#")
        if hash_at >= 0:
            if re.match(r"#\[=*\[", raw[hash_at:]):
                fail(lineno, "bracket comment '#[[' not understood (use # line comments)")
            line = raw[:hash_at]
        else:
            line = raw
        line = line.strip()
        if not line:
            continue
        if current is None:
            opening = _SET_OPEN.match(line)
            if not opening or opening.group(1).lower() != "set":
                fail(lineno, "expected set(NAME item ...), found %r (the reader understands "
                     "only set() lists and # comments)" % line)
            line = line[opening.end():].lstrip()
            words = line.split(None, 1)
            name = words[0].rstrip(")") if words else ""
            if not _NAME.match(name):
                fail(lineno, "set( must be followed by a list name on the same line")
            if name in where_set:
                fail(lineno, "%s is set a second time (first at line %d)" % (name, where_set[name]))
            current = (name, [], lineno)
            line = line[len(name):]
        name, items, opened = current
        for token in _TOKEN.findall(line):
            if current is None:
                fail(lineno, "%r after the ) that closes set(%s" % (token, name))
            if token == ")":
                if not items:
                    fail(lineno, "set(%s) without items unsets %s in CMake; list an item or "
                         "drop the block" % (name, name))
                lists[name] = items
                where_set[name] = opened
                current = None
                continue
            if token == "(":
                fail(lineno, "'(' inside set(%s ...) not understood" % name)
            ref = _REF.match(token)
            if ref:
                other = ref.group(1)
                if other not in lists:
                    fail(lineno, "${%s} is not a list set earlier in this file" % other)
                items.extend(lists[other])
            elif token[0] in "\"[":
                fail(lineno, "quoted or bracket argument %r of set(%s ...) not understood (plain "
                     "unquoted items only)" % (token, name))
            elif token in _KEYWORDS:
                fail(lineno, "%s in set(%s ...): only plain lists are understood" % (token, name))
            elif _ITEM.match(token):
                items.append(token)
            else:
                fail(lineno, "item %r of set(%s ...) not understood (plain paths and names, or "
                     "exactly ${LIST})" % (token, name))
    if current is not None:
        fail(current[2], "set(%s is never closed by ')'" % current[0])
    return lists


def read_lists(path, required=(), origin=None):
    """The lists of the CMake file at ``path`` (see :func:`parse_lists`).

    Every name in ``required`` must be set and non-empty. ``origin`` (default: ``path``) names the
    file in error messages.
    """
    origin = origin or path
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as err:
        raise FileListError("%s: cannot read the file lists (%s)" % (origin, err.strerror))
    lists = parse_lists(text, origin)
    for name in required:
        if name not in lists:
            raise FileListError("%s: list %s is not set" % (origin, name))
        if not lists[name]:
            raise FileListError("%s:%d: list %s is empty" % (origin, _line_of(text, name), name))
    return lists


def _line_of(text, name):
    for lineno, line in enumerate(text.splitlines(), start=1):
        if re.match(r"\s*set\s*\(\s*%s\b" % re.escape(name), line, re.IGNORECASE):
            return lineno
    return 0


def main(argv):
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crux-sources.cmake")
    if len(argv) > 2:
        print("usage: crux_sources.py [CRUX_SOURCES_CMAKE]", file=sys.stderr)
        return 2
    try:
        lists = read_lists(argv[1] if len(argv) == 2 else default)
    except FileListError as err:
        print("crux_sources.py: %s" % err, file=sys.stderr)
        return 1
    for name, items in lists.items():
        print(" ".join([name] + items))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
