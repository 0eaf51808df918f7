# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
#
# crux: communication scheduling for deep-learning training clusters (ns-3 module).
#
# Build file for waf-based ns-3 trees (ns-3 <= 3.35): copy or link this repository to
# contrib/crux of the ns-3 tree, then `./waf configure --enable-modules=crux --enable-examples
# --enable-tests -d release --disable-werror` and `./waf build`. Tested with ns-3.35 (the first
# waf release whose default C++ dialect is C++17) by scripts/waf335.sh, which CI runs.
# The sources use the ns-3.36+ conveniences (functor events and callbacks) only through
# model/util/crux-compat.h, which builds on ns-3.35 too.
#
# File lists: cmake/crux-sources.cmake is the one place the module's files are listed, for
# CMake and for this file alike. wscript and examples/wscript hold no list of their own: they read
# CRUX_SOURCES, CRUX_HEADERS, CRUX_MPI_SOURCES / CRUX_NO_MPI_SOURCES / CRUX_MPI_HEADERS,
# CRUX_TEST_SOURCES, CRUX_PROTO_FILES and CRUX_EXAMPLES from it at configure and build time
# through cmake/crux_sources.py, a strict reader of its set() blocks that stops the build with
# file:line on anything it does not understand. test/check-file-lists.py (ctest
# `check-file-lists`) checks that the reader gives the lists CMake evaluates, and the lists
# against the files on disk.
#
# Standalone-only (not built here): the GoogleTest programs (CRUX_GTEST_SOURCES, test/gtest/),
# the benchmark programs (CRUX_BENCH_PROGRAMS, bench/) and the helper static libraries
# crux-scheduling / crux-pure-drivers / crux-scenario. They belong to the standalone CMake build
# against an installed ns-3 (see CMakeLists.txt); ns-3's waf has no GoogleTest integration.
# Python bindings are not generated here either (the pybindgen step of ns-3 <= 3.35 needs
# scanned bindings files, which this module does not ship).

import os

# The lists of cmake/crux-sources.cmake this file and examples/wscript use (each must be
# non-empty).
_USED_LISTS = ('CRUX_SOURCES', 'CRUX_HEADERS', 'CRUX_MPI_SOURCES', 'CRUX_NO_MPI_SOURCES',
               'CRUX_MPI_HEADERS', 'CRUX_TEST_SOURCES', 'CRUX_PROTO_FILES', 'CRUX_EXAMPLES')

# Header-only libraries the module needs, as (header, Debian package) pairs.
_REQUIRED_HEADERS = [
    ('nlohmann/json.hpp', 'nlohmann-json3-dev'),
    ('boost/graph/adjacency_list.hpp', 'libboost-graph-dev'),
    ('boost/graph/topological_sort.hpp', 'libboost-graph-dev'),
    ('boost/graph/breadth_first_search.hpp', 'libboost-graph-dev'),
    ('boost/crc.hpp', 'libboost-dev'),
    ('boost/date_time/gregorian/gregorian_types.hpp', 'libboost-dev'),
]

_CXX17_FRAGMENT = '''
#include <optional>
#include <string_view>
int main() { std::optional<std::string_view> s{"crux"}; return s->size() == 4 ? 0 : 1; }
'''


def _crux_lists(ctx):
    """The lists of cmake/crux-sources.cmake (dict NAME -> list of paths or names).

    Read by cmake/crux_sources.py, executed here without importing it (nothing is cached or
    compiled into the clone); ``ctx.path`` is this module's folder. Anything the reader does not
    understand, or a list of _USED_LISTS that is missing or empty, stops waf with the reader's
    one-line message naming the file and line.
    """
    root = ctx.path.abspath()
    reader = os.path.join(root, 'cmake', 'crux_sources.py')
    scope = {'__name__': 'crux_sources'}
    try:
        with open(reader, encoding='utf-8') as handle:
            code = handle.read()
    except OSError as err:
        ctx.fatal('crux: cannot read %s (%s)' % (reader, err.strerror))
    exec(compile(code, reader, 'exec'), scope)
    try:
        return scope['read_lists'](os.path.join(root, 'cmake', 'crux-sources.cmake'),
                                   required=_USED_LISTS)
    except scope['FileListError'] as err:
        ctx.fatal('crux: %s' % err)


def _not_built(conf, reason):
    """Report crux as disabled and keep waf from building it (ns-3's optional-module idiom)."""
    conf.report_optional_feature('crux', 'crux (DLT communication scheduling)', False, reason)
    if 'crux' not in conf.env['MODULES_NOT_BUILT']:
        conf.env.append_value('MODULES_NOT_BUILT', 'crux')


def configure(conf):
    # the file lists: a clear error now rather than at build time
    _crux_lists(conf)

    # C++17 (std::optional, structured bindings, inline variables): ns-3.35 already passes
    # -std=c++17; older waf trees default to C++11, so add it when no C++17+ flag is present.
    cxx_std_ok = ('-std=c++17', '-std=gnu++17', '-std=c++2a', '-std=gnu++2a',
                  '-std=c++20', '-std=gnu++20')
    if not any(flag in conf.env['CXXFLAGS'] for flag in cxx_std_ok):
        conf.env.append_value('CXXFLAGS', '-std=c++17')
    if not conf.check_cxx(fragment=_CXX17_FRAGMENT, execute=False, mandatory=False,
                          msg='Checking for C++17 support (crux)'):
        _not_built(conf, 'the C++ compiler does not accept C++17')
        return

    for header, package in _REQUIRED_HEADERS:
        if not conf.check_cxx(header_name=header, mandatory=False,
                              msg='Checking for %s (crux)' % header):
            _not_built(conf, '%s not found (Debian/Ubuntu: apt-get install %s)'
                       % (header, package))
            return

    # Chakra execution traces: protoc and libprotobuf
    if not conf.find_program('protoc', var='PROTOC', mandatory=False):
        _not_built(conf, 'protoc not found (Debian/Ubuntu: apt-get install protobuf-compiler)')
        return
    if not conf.check_cfg(package='protobuf', args=['--cflags', '--libs'],
                          uselib_store='PROTOBUF', mandatory=False):
        _not_built(conf, 'libprotobuf not found (Debian/Ubuntu: apt-get install libprotobuf-dev)')
        return

    conf.report_optional_feature('crux', 'crux (DLT communication scheduling)', True, '')


def build(bld):
    if 'crux' in bld.env['MODULES_NOT_BUILT']:
        return

    lists = _crux_lists(bld)

    # protoc: model/workload/<name>.proto -> <build>/.../<name>.pb.cc/.pb.h, compiled into the
    # module; the directory of the generated header is on the module's include path.
    generated = []
    for proto in lists['CRUX_PROTO_FILES']:
        node = bld.path.find_resource(proto)
        pb_cc = node.change_ext('.pb.cc')
        pb_h = node.change_ext('.pb.h')
        bld(rule='${PROTOC} --cpp_out=${TGT[0].parent.abspath()} '
                 '-I${SRC[0].parent.abspath()} ${SRC[0].abspath()}',
            source=node, target=[pb_cc, pb_h])
        generated.append(pb_cc)

    # ns-3's distributed simulator: only when the tree was configured with --enable-mpi
    # (CRUX_MPI_SOURCES, depending on the mpi module, as ns-3.35's point-to-point does for its
    # remote channel), otherwise the one-rank stand-in (CRUX_NO_MPI_SOURCES). Not tested:
    # scripts/waf335.sh builds without MPI.
    deps = ['core', 'network', 'internet']
    mpi = bool(bld.env['ENABLE_MPI'])
    if mpi:
        deps = deps + ['mpi']
    module = bld.create_ns3_module('crux', deps)
    variant = lists['CRUX_MPI_SOURCES'] if mpi else lists['CRUX_NO_MPI_SOURCES']
    module.source = lists['CRUX_SOURCES'] + variant + generated
    module.use.append('PROTOBUF')
    module.includes = [bld.path.find_dir('model/workload').get_bld().abspath()]

    module_test = bld.create_ns3_module_test_library('crux')
    module_test.source = list(lists['CRUX_TEST_SOURCES'])

    # Public headers are installed flat as ns3/<name>.h, as in the CMake builds.
    headers = bld(features='ns3header')
    headers.module = 'crux'
    headers.source = lists['CRUX_HEADERS'] + (lists['CRUX_MPI_HEADERS'] if mpi else [])

    if bld.env.ENABLE_EXAMPLES:
        # examples/wscript builds CRUX_EXAMPLES from these lists (read once, here)
        bld.crux_lists = lists
        bld.recurse('examples')
