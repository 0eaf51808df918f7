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
"""Python bindings of the crux ns-3 module, through cppyy (ns-3.37 style ``ns`` namespace).

Usage::

    import sys; sys.path.insert(0, "<crux clone>/bindings/python")
    from crux import ns          # loads ns-3 and libns3-crux on first use
    s = ns.Scenario.Load("scenarios/sec22-gpt-bert.json")
    runs = ns.CruxExperiment(s).Run(["ecmp", "crux"])

``ns`` is ``cppyy.gbl.ns3``: every ns-3 and crux class, function and constant of the loaded
headers (ns-3 modules core, network and internet by default, plus every public crux header).
``ns.cppyy`` is the cppyy module. Call :func:`load` explicitly to pick the build directory or
to add ns-3 modules (``load(extra_modules=["point-to-point", "applications"])``); it must run
before the first ``ns`` access.

Where things are found (first match wins):

1. **Standalone build** (``scripts/setup.sh``; crux built with CMake against an installed
   ns-3 3.37, e.g. Debian bookworm's ``libns3-dev``). Used when ``CRUX_BUILD_DIR`` is set, or
   when no ns-3 source tree is found (2.). The build directory is ``CRUX_BUILD_DIR`` (default
   ``<clone>/build``); ``libns3-crux.so`` is read from ``<build>/lib`` and the headers from
   ``<build>/include``. ns-3 comes from ``NS3_INCLUDE_DIR`` / ``NS3_LIB_DIR`` if set, otherwise
   from ``/usr/include`` (or ``/usr/local/include``) and the multiarch library directory
   (``/usr/lib/x86_64-linux-gnu`` on Debian amd64), where Debian names the libraries
   ``libns3-<module>.so.37``. Libraries named the ns-3 source way (``libns3.37-<module>.so``,
   e.g. after ``./ns3 install``) are accepted as well. The headers are parsed with
   ``NS3_LOG_ENABLE`` defined, because Debian built ns-3 with logging on and class layouts
   depend on it (ns3-notes.md §2); set ``CRUX_NS3_LOG=0`` for an ns-3 built without logging.

2. **In-tree build** (crux as ``contrib/crux`` of an ns-3.37 source tree, ``scripts/intree.sh``
   or ``./ns3 configure --enable-modules=crux``). The tree is ``CRUX_NS3_DIR`` if set, otherwise
   the first parent directory of this file (symlinks not resolved, so ``contrib/crux`` pointing
   at a clone works when this file is reached through the tree) that holds a
   ``.lock-ns3_<platform>_build`` file. The lock file gives ``out_dir``, the build profile and
   the enabled modules. Libraries are ``<out_dir>/lib/libns3.37-<module>[-<profile>].so``
   (release builds have no profile suffix), headers ``<out_dir>/include/ns3``. If ns-3 was
   configured with ``--enable-python-bindings`` its own ``ns`` package is imported first
   (``from ns import ns``); ns-3.37-3.41 never load contrib modules, so crux's header and
   library are added to it here. Otherwise every module of ``NS3_ENABLED_MODULES`` is loaded
   directly. ``NS3_LOG_ENABLE`` / ``NS3_ASSERT_ENABLE`` follow the tree's configuration
   (``NS3_LOG`` / ``NS3_ASSERT`` in ``cmake-cache/CMakeCache.txt``, or the debug profile).

Schedulers written in Python: subclass ``ns.CommScheduler``, implement
``DoSchedule(self, model, config)`` (return an ``ns.Decision``) and call
:func:`register_scheduler` (``register_scheduler("sjf", SjfScheduler)``); the short name then
works wherever the built-in names do (``CruxExperiment.Run``, ``ClusterRunConfig.schedulers``,
``StageAblationOptions.extraSchedulers``), in this Python process. See
``examples/sjf-scheduler.py``.

cppyy: ns-3.37-3.41 need ``cppyy==2.4.2`` (cppyy 3.x breaks them); ``scripts/setup.sh``
installs it into the virtual environment ``<build>/venv``, so run Python scripts with
``build/venv/bin/python``. If cppyy is missing, loading raises :class:`BindingsUnavailable`
(an ImportError) saying so.
"""

import glob
import os
import sys
import sysconfig
import warnings

__all__ = ["load", "layout", "find_build", "register_scheduler", "BindingsUnavailable",
           "REQUIRED_CPPYY"]

#: cppyy version the ns-3.37 bindings need (ns-3 Installation Guide; cppyy 3.x breaks 3.37).
REQUIRED_CPPYY = "2.4.2"

#: ns-3 modules whose headers are included by default (crux's public headers use these).
DEFAULT_MODULES = ("core", "network", "internet")

#: ns-3 version crux targets (Debian bookworm's libns3-dev).
NS3_VERSION = "3.37"

# <clone>/bindings/python/crux/__init__.py -> <clone>
_REPO = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_ns = None
_layout = None
# Python scheduler instances handed to C++ (see register_scheduler) and the registered factories.
_py_schedulers = []
_py_factories = {}


class BindingsUnavailable(ImportError):
    """The bindings cannot be loaded: cppyy missing, crux not built, or ns-3 not found. The
    message names what is missing and how to get it."""


def _env_flag(name, default):
    """Boolean environment variable: 0/no/off/false -> False, 1/yes/on/true -> True."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() not in ("0", "no", "off", "false")


def _find_lock(start):
    """The .lock-ns3_<platform>_build file of the ns-3 tree holding `start`, or None."""
    lock_name = ".lock-ns3_%s_build" % sys.platform
    path = start
    while True:
        candidate = os.path.join(path, lock_name)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _read_lock(lock_file):
    """The variables of an ns-3 lock file (it is Python source written by ./ns3 configure)."""
    values = {}
    with open(lock_file) as f:
        exec(f.read(), {}, values)  # same as ns-3's own ns__init__.py
    return values


def _cmake_cache_bool(cache_file, name):
    """A BOOL entry of a CMakeCache.txt, or None if absent."""
    try:
        with open(cache_file) as f:
            for line in f:
                if line.startswith(name + ":BOOL="):
                    return line.split("=", 1)[1].strip().upper() in ("ON", "1", "TRUE", "YES")
    except OSError:
        pass
    return None


def _cmake_cache_paths(cache_file, names):
    """The non-empty PATH/STRING entries \p names of a CMakeCache.txt (";"-lists split), ordered."""
    found = []
    try:
        with open(cache_file) as f:
            for line in f:
                key, sep, value = line.partition("=")
                if sep and key.split(":", 1)[0] in names:
                    found += [v for v in value.strip().split(";") if v and v not in found]
    except OSError:
        pass
    return found


def _multiarch_lib_dirs():
    """Library directories where a packaged ns-3 may live, most specific first."""
    dirs = []
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:
        dirs.append(os.path.join("/usr/lib", multiarch))
    dirs += sorted(glob.glob("/usr/lib/*-linux-gnu*"))
    dirs += ["/usr/lib64", "/usr/lib", "/usr/local/lib64", "/usr/local/lib"]
    seen = []
    for d in dirs:
        if d not in seen and os.path.isdir(d):
            seen.append(d)
    return seen


def _installed_ns3_lib(lib_dir, module):
    """Path of an installed ns-3 module library in lib_dir, or None.

    Accepts Debian's libns3-<module>.so.<minor> (e.g. libns3-core.so.37) and the ns-3 source
    build's libns3.<version>-<module>[-<profile>].so."""
    minor = NS3_VERSION.split(".")[1]
    names = [
        "libns3-%s.so.%s" % (module, minor),
        "libns%s-%s.so" % (NS3_VERSION, module),
    ]
    for name in names:
        path = os.path.join(lib_dir, name)
        if os.path.exists(path):
            return path
    pattern = "libns%s-%s-*.so" % (NS3_VERSION, module)
    profiled = sorted(glob.glob(os.path.join(lib_dir, pattern)))
    profiled = [p for p in profiled if not p.endswith("-test.so") and "-test-" not in p]
    return profiled[0] if profiled else None


def find_build():
    """Where ns-3 and crux will be loaded from, without loading anything.

    :return: dict with keys ``mode`` ("standalone" or "in-tree"), ``include_dirs`` (list),
             ``ns3_libs`` (module -> library path), ``crux_lib``, ``log_enable``,
             ``assert_enable``, ``modules`` (headers to include), ``lock_file`` (in-tree only),
             ``ns_bindings`` (in-tree only: the ns-3 ``ns`` package directory or None)
    :raises BindingsUnavailable: if a library or header directory is missing (the message
             names the path and the environment variable to set)
    """
    if not os.environ.get("CRUX_BUILD_DIR"):
        tree = os.environ.get("CRUX_NS3_DIR")
        if tree:
            lock = _find_lock(os.path.abspath(tree))
            if lock is None:
                raise BindingsUnavailable(
                    "crux bindings: CRUX_NS3_DIR=%s holds no .lock-ns3_%s_build file: "
                    "configure the ns-3 tree first (./ns3 configure --enable-modules=crux)"
                    % (tree, sys.platform))
            return _in_tree_layout(lock)
        lock = _find_lock(os.path.dirname(os.path.abspath(__file__)))
        if lock is not None:
            return _in_tree_layout(lock)
    return _standalone_layout()


def _standalone_layout():
    build = os.path.abspath(os.environ.get("CRUX_BUILD_DIR") or os.path.join(_REPO, "build"))
    crux_lib = os.path.join(build, "lib", "libns3-crux.so")
    crux_include = os.path.join(build, "include")
    if not os.path.isfile(crux_lib) or not os.path.isfile(
            os.path.join(crux_include, "ns3", "crux-module.h")):
        raise BindingsUnavailable(
            "crux bindings: %s or %s/ns3/crux-module.h not found: build crux first "
            "(bash scripts/setup.sh, or cmake --build <build> --target ns3-crux) and set "
            "CRUX_BUILD_DIR to its build directory (default <clone>/build)"
            % (crux_lib, crux_include))

    include_dir = os.environ.get("NS3_INCLUDE_DIR")
    candidates = [include_dir] if include_dir else ["/usr/include", "/usr/local/include"]
    ns3_include = None
    for c in candidates:
        if os.path.isfile(os.path.join(c, "ns3", "core-module.h")):
            ns3_include = c
            break
    if ns3_include is None:
        raise BindingsUnavailable(
            "crux bindings: ns-3 headers (ns3/core-module.h) not found in %s: install "
            "libns3-dev (Debian) or set NS3_INCLUDE_DIR to the directory holding ns3/"
            % ", ".join(candidates))

    lib_dir = os.environ.get("NS3_LIB_DIR")
    lib_dirs = [lib_dir] if lib_dir else _multiarch_lib_dirs()
    ns3_libs = {}
    for d in lib_dirs:
        if _installed_ns3_lib(d, "core"):
            for m in DEFAULT_MODULES:
                path = _installed_ns3_lib(d, m)
                if path is None:
                    raise BindingsUnavailable(
                        "crux bindings: ns-3 module library '%s' not found in %s" % (m, d))
                ns3_libs[m] = path
            break
    if not ns3_libs:
        raise BindingsUnavailable(
            "crux bindings: ns-3 %s libraries (libns3-core.so.%s or libns%s-core.so) not "
            "found in %s: install libns3-dev (Debian) or set NS3_LIB_DIR"
            % (NS3_VERSION, NS3_VERSION.split(".")[1], NS3_VERSION, ", ".join(lib_dirs)))

    return {
        "mode": "standalone",
        "include_dirs": [crux_include, ns3_include],
        "ns3_libs": ns3_libs,
        "crux_lib": crux_lib,
        "log_enable": _env_flag("CRUX_NS3_LOG", True),
        "assert_enable": _env_flag("CRUX_NS3_ASSERT", False),
        "modules": list(DEFAULT_MODULES),
        "lock_file": None,
        "ns_bindings": None,
    }


def _in_tree_layout(lock_file):
    values = _read_lock(lock_file)
    out_dir = values["out_dir"]
    top_dir = values.get("top_dir", os.path.dirname(lock_file))
    profile = values.get("BUILD_PROFILE", "default")
    version = values.get("VERSION", NS3_VERSION)
    suffix = "" if profile == "release" else "-" + profile
    lib_dir = os.path.join(out_dir, "lib")

    def lib(module):
        return os.path.join(lib_dir, "libns%s-%s%s.so" % (version, module, suffix))

    modules = [m[len("ns3-"):] if m.startswith("ns3-") else m
               for m in values.get("NS3_ENABLED_MODULES", [])]
    contrib = [m[len("ns3-"):] if m.startswith("ns3-") else m
               for m in values.get("NS3_ENABLED_CONTRIBUTED_MODULES", [])]
    if "crux" not in contrib:
        raise BindingsUnavailable(
            "crux bindings: crux is not an enabled contrib module of the ns-3 tree %s (%s): "
            "./ns3 configure --enable-modules=crux" % (top_dir, lock_file))
    ns3_libs = {m: lib(m) for m in modules}
    crux_lib = lib("crux")
    missing = [p for p in list(ns3_libs.values()) + [crux_lib] if not os.path.isfile(p)]
    if missing:
        raise BindingsUnavailable(
            "crux bindings: ns-3 tree %s is configured but not built (missing %s): ./ns3 build"
            % (top_dir, ", ".join(missing)))

    cache = os.path.join(top_dir, "cmake-cache", "CMakeCache.txt")
    log = _cmake_cache_bool(cache, "NS3_LOG")
    asserts = _cmake_cache_bool(cache, "NS3_ASSERT")
    ns_dir = os.path.join(out_dir, "bindings", "python")
    has_ns = values.get("ENABLE_PYTHON_BINDINGS", False) and os.path.isfile(
        os.path.join(ns_dir, "ns", "__init__.py"))
    include_dirs = [os.path.join(out_dir, "include")]
    if "mpi" in modules:
        # ns-3's mpi module headers include <mpi.h>: the MPI headers CMake found for the tree
        include_dirs += _cmake_cache_paths(
            cache, ("MPI_CXX_HEADER_DIR", "MPI_CXX_ADDITIONAL_INCLUDE_DIRS"))
    return {
        "mode": "in-tree",
        "include_dirs": include_dirs,
        "ns3_libs": ns3_libs,
        "crux_lib": crux_lib,
        "log_enable": bool(log) or profile == "debug",
        "assert_enable": bool(asserts) or profile == "debug",
        "modules": modules,
        "lock_file": lock_file,
        "ns_bindings": ns_dir if has_ns else None,
    }


def _import_cppyy():
    try:
        import cppyy
    except ImportError as e:
        raise BindingsUnavailable(
            "crux bindings: cannot import cppyy (%s). Install cppyy==%s (bash scripts/setup.sh "
            "puts it into build/venv; run Python as build/venv/bin/python)"
            % (e, REQUIRED_CPPYY)) from e
    version = getattr(cppyy, "__version__", "?")
    if version != REQUIRED_CPPYY:
        warnings.warn("crux bindings: cppyy %s found; ns-3 %s is known to work with cppyy==%s "
                      "only (cppyy 3.x breaks ns-3 <= 3.41)" % (version, NS3_VERSION,
                                                                  REQUIRED_CPPYY))
    return cppyy


def _add_shims(cppyy, ns):
    """A few conveniences also present in ns-3's own ns__init__.py (ns.cppyy, Time comparison
    operators, Nodes created from Python kept alive until the simulation destroys them)."""
    setattr(ns, "cppyy", cppyy)
    if not hasattr(cppyy.gbl, "crux_py_Time_lt"):
        cppyy.cppdef("""
            bool crux_py_Time_lt(const ns3::Time& a, const ns3::Time& b) { return a < b; }
            bool crux_py_Time_le(const ns3::Time& a, const ns3::Time& b) { return a <= b; }
            bool crux_py_Time_gt(const ns3::Time& a, const ns3::Time& b) { return a > b; }
            bool crux_py_Time_ge(const ns3::Time& a, const ns3::Time& b) { return a >= b; }
            bool crux_py_Time_eq(const ns3::Time& a, const ns3::Time& b) { return a == b; }
            bool crux_py_Time_ne(const ns3::Time& a, const ns3::Time& b) { return a != b; }
        """)
    for op in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(ns.Time, "__%s__" % op, getattr(cppyy.gbl, "crux_py_Time_" + op))
    if hasattr(ns, "Node"):
        pending = []

        def node_del(self):
            # NodeList owns every Node; a Python-side delete must not destroy it.
            pending.append(self)

        ns.Node.__del__ = node_del


def load(extra_modules=(), verbose=False):
    """Load ns-3 and crux into cppyy (once per process) and return the ``ns3`` namespace.

    :param extra_modules: more ns-3 modules whose ``ns3/<m>-module.h`` headers and libraries
        are loaded (e.g. ``["point-to-point", "applications"]``); ignored after the first call
    :param verbose: print what is loaded from where (stderr)
    :return: ``cppyy.gbl.ns3``
    :raises BindingsUnavailable: cppyy missing, crux not built, or ns-3 not found
    """
    global _ns, _layout
    if _ns is not None:
        return _ns
    layout = find_build()
    cppyy = _import_cppyy()

    # Must precede every ns-3 header: class layouts depend on these macros.
    if layout["log_enable"]:
        cppyy.cppdef("#ifndef NS3_LOG_ENABLE\n#define NS3_LOG_ENABLE 1\n#endif")
    if layout["assert_enable"]:
        cppyy.cppdef("#ifndef NS3_ASSERT_ENABLE\n#define NS3_ASSERT_ENABLE 1\n#endif")
    for d in layout["include_dirs"]:
        cppyy.add_include_path(d)

    modules = list(layout["modules"])
    libs = dict(layout["ns3_libs"])
    if layout["mode"] == "standalone":
        lib_dir = os.path.dirname(libs["core"])
        for m in extra_modules:
            path = _installed_ns3_lib(lib_dir, m)
            if path is None:
                raise BindingsUnavailable(
                    "crux bindings: ns-3 module library '%s' not found in %s" % (m, lib_dir))
            libs[m] = path
            modules.append(m)
    else:
        for m in extra_modules:
            if m not in libs:
                raise BindingsUnavailable(
                    "crux bindings: module '%s' is not enabled in the ns-3 tree (%s)"
                    % (m, layout["lock_file"]))

    if layout["ns_bindings"]:
        # In-tree with ns-3's own bindings: they load every enabled ns-3 module.
        if layout["ns_bindings"] not in sys.path:
            sys.path.insert(0, layout["ns_bindings"])
        from ns import ns as ns3  # noqa: F401 (ns-3's loader, run for its side effects)
    else:
        for m in modules:
            cppyy.include("ns3/%s-module.h" % m)
        for m in modules:
            cppyy.load_library(libs[m])
    try:
        cppyy.include("ns3/crux-module.h")
    except ImportError as e:
        raise BindingsUnavailable(
            "crux bindings: cannot parse ns3/crux-module.h from %s (incomplete or stale build? "
            "rebuild the ns3-crux target): %s" % (layout["include_dirs"][0], e)) from e
    cppyy.load_library(layout["crux_lib"])
    if verbose:
        sys.stderr.write("crux bindings (%s): %s; ns-3 modules %s\n"
                         % (layout["mode"], layout["crux_lib"], ", ".join(modules)))
    ns = cppyy.gbl.ns3
    _add_shims(cppyy, ns)
    _layout = dict(layout, modules=modules, ns3_libs=libs)
    _ns = ns
    return ns


def layout():
    """What :func:`load` loaded (see :func:`find_build`), or None before loading."""
    return _layout


def _release_unused_schedulers():
    """Give back to Python the scheduler instances no C++ ``Ptr`` holds any more.

    An instance made for C++ starts with ns-3 reference count 1 (its creation) and Python
    ownership off, so C++ never deletes a Python object; once every ``Ptr`` is gone the count is
    back to 1 and Python may delete it."""
    keep = []
    for obj in _py_schedulers:
        if obj.GetReferenceCount() > 1:
            keep.append(obj)
        else:
            obj.__python_owns__ = True
    _py_schedulers[:] = keep


def register_scheduler(name, scheduler_class):
    """Register a Python scheduler under a short name (ns3::RegisterCommScheduler).

    :param name: short name (letters, digits, ``.``, ``_``, ``-``; not taken yet), used like
        "crux" or "ecmp": in ``CruxExperiment.Run``, ``ClusterRunConfig.schedulers``,
        ``StageAblationOptions.extraSchedulers`` and ``ns.CreateCommScheduler(name)``
    :param scheduler_class: a Python subclass of ``ns.CommScheduler`` implementing
        ``DoSchedule(self, model, config)``; it is instantiated without arguments once per
        ``CreateCommScheduler(name)``. ``Schedule()`` (the C++ template method) validates the
        input before and the returned decision after ``DoSchedule``.
    :raises TypeError: if scheduler_class is not a subclass of ``ns.CommScheduler``
    :raises Exception: the C++ std::invalid_argument for a malformed or taken name

    The schedulers run in the calling Python process only, and only from its main thread (the
    C++ programs and the microbenchmark's worker threads cannot call Python).

    Lifetime: each instance is kept (Python ownership off) while a C++ ``Ptr`` holds it and given
    back to Python at the next creation after the last ``Ptr`` is gone. Calling ``Schedule()``
    from Python through the ``Ptr`` that ``ns.CreateCommScheduler`` returned leaves one reference
    that cppyy 2.4.2 never drops, so such an instance lives until the process ends (a few
    hundred bytes); the C++ drivers' calls do not.
    """
    ns = load()
    if not (isinstance(scheduler_class, type) and issubclass(scheduler_class, ns.CommScheduler)):
        raise TypeError("register_scheduler(%r): %r is not a subclass of ns.CommScheduler"
                        % (name, scheduler_class))

    user_do_schedule = scheduler_class.DoSchedule

    class _Checked(scheduler_class):
        # what DoSchedule returns goes to C++ as a Decision: anything else (a forgotten return
        # gives None) would only say "TypeError: could not convert argument 1"
        def DoSchedule(self, model, config):
            decision = user_do_schedule(self, model, config)
            if not isinstance(decision, ns.Decision):
                raise TypeError("scheduler %r: %s.DoSchedule returned %s, not an ns.Decision "
                                "(did it forget to return the decision?)"
                                % (name, scheduler_class.__name__,
                                   "None" if decision is None else type(decision).__name__))
            return decision

    _Checked.__name__ = scheduler_class.__name__
    _Checked.__qualname__ = scheduler_class.__qualname__

    def factory():
        _release_unused_schedulers()
        obj = _Checked()
        obj.__python_owns__ = False  # C++ holds it through Ptr; kept alive in _py_schedulers
        _py_schedulers.append(obj)
        return ns.Ptr[ns.CommScheduler](obj)

    ns.RegisterCommScheduler(name, ns.CommSchedulerFactory(factory))
    _py_factories[name] = factory  # the C++ std::function refers to it


def __getattr__(name):
    # PEP 562: `from crux import ns` / `crux.ns` load on first use.
    if name == "ns":
        return load()
    raise AttributeError("module 'crux' has no attribute %r" % name)
