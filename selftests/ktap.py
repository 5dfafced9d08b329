# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""ktap.py: KTAP output and kselftest skips for the Python selftests.

    t = Tests()
    t.require_root(); t.require_module('sroce'); t.require_pyverbs()
    @t.case('description')
    def _(): assert ...
    sys.exit(t.run())

Cases run in order; an exception fails the case (with its message as a
diagnostic) and the run goes on. A case that raises Skip('why') cannot
run here and is reported as skipped.
"""
import os
import subprocess
import sys


def sh(cmd):
    """Run a shell command; return its stdout, raise on failure."""
    return subprocess.run(cmd, shell=True, check=True, text=True,
                          capture_output=True).stdout


class Skip(Exception):
    """Raised by a case whose prerequisite is missing: reported as SKIP."""


class Tests:
    def __init__(self):
        self.cases = []

    def skip_all(self, why):
        print('KTAP version 1')
        print(f'1..0 # SKIP {why}')
        sys.exit(4)

    def require_root(self):
        if os.geteuid() != 0:
            self.skip_all('needs root')

    def require_module(self, name):
        if subprocess.run(['modinfo', name], capture_output=True).returncode:
            self.skip_all(f'needs kernel module {name}')

    def require_pyverbs(self):
        try:
            import pyverbs.device  # noqa: F401
        except ImportError:
            self.skip_all('needs python3-pyverbs')

    def case(self, desc):
        def add(fn):
            self.cases.append((desc, fn))
            return fn
        return add

    def run(self):
        print('KTAP version 1')
        print(f'1..{len(self.cases)}')
        failed = 0
        for n, (desc, fn) in enumerate(self.cases, 1):
            try:
                fn()
                print(f'ok {n} {desc}', flush=True)
            except Skip as why:
                print(f'ok {n} {desc} # SKIP {why}', flush=True)
            except Exception as ex:  # report and go on
                failed += 1
                print(f'# {type(ex).__name__}: {ex!r}')
                print(f'not ok {n} {desc}', flush=True)
        return 1 if failed else 0
