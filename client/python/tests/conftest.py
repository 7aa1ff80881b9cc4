"""Refuses to test anything but an installed informerd.

run-tests.sh installs the package with pip and runs pytest outside the
source tree; a source checkout on sys.path would test code that is not
what users get (and has no generated API modules).

Also the ``fake_caches`` fixture: in-process scripted servers (see
fake_server.py) with a channel each, closed after the test.
"""

import os

import pytest

import informerd

_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if os.path.abspath(informerd.__file__).startswith(_SOURCE + os.sep):
    raise RuntimeError(
        "informerd was imported from the source tree (%s), not from an "
        "installed package; run client/python/run-tests.sh"
        % informerd.__file__)


class FakeCaches:
    """In-process ScriptedCache servers with a channel to each; at the end
    of the test, runs what was registered with ``on_exit`` (stopping
    informers or factories, newest first), then closes everything."""

    def __init__(self):
        self._exits = []
        self._servers = []

    def start(self, scripts):
        """(servicer, channel) of a new server playing ``scripts``."""
        from fake_server import ScriptedCache, start_server

        servicer = ScriptedCache(scripts)
        server, port = start_server(servicer)
        channel = informerd.connect(
            informerd.ConnectionOptions(["127.0.0.1:%d" % port]))
        self._servers.append((servicer, server, channel))
        return servicer, channel

    def on_exit(self, function):
        self._exits.append(function)

    def close(self):
        for function in reversed(self._exits):
            function()
        for servicer, server, channel in self._servers:
            servicer.close()
            channel.close()
            server.stop(None)


@pytest.fixture
def fake_caches():
    caches = FakeCaches()
    yield caches
    caches.close()
