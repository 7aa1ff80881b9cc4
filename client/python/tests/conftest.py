"""Refuses to test anything but an installed informerd.

run-tests.sh installs the package with pip and runs pytest outside the
source tree; a source checkout on sys.path would test code that is not
what users get (and has no generated API modules).
"""

import os

import informerd

_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if os.path.abspath(informerd.__file__).startswith(_SOURCE + os.sep):
    raise RuntimeError(
        "informerd was imported from the source tree (%s), not from an "
        "installed package; run client/python/run-tests.sh"
        % informerd.__file__)
