"""A wrong address, a server that is not gRPC, and a resource informerd
does not serve each reach the informer's error channels within 5s: a
warning on logger "informerd" and ``last_error``, both naming the server's
address, the resource and the reason; and the informer keeps retrying."""

import logging
import socket
import threading
import time

import grpc
import pytest

from informerd import ConnectionOptions, Informer, InformerError, connect
from live_env import live_cluster

REPORT_WITHIN = 5.0


class Records(logging.Handler):
    """The messages logged on logger "informerd", thread-safely."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self._lock = threading.Lock()
        self._messages = []

    def emit(self, record):
        with self._lock:
            self._messages.append(record.getMessage())

    def messages(self):
        with self._lock:
            return list(self._messages)


@pytest.fixture
def records():
    handler = Records()
    logger = logging.getLogger("informerd")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return "127.0.0.1:%d" % probe.getsockname()[1]


@pytest.fixture
def not_grpc():
    """A TCP server answering every connection with a plain HTTP error, as
    a wrong port (a web server, a metrics port) would."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\n"
                                 b"Content-Length: 0\r\n\r\n")
                    while conn.recv(4096):
                        pass
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    yield "127.0.0.1:%d" % listener.getsockname()[1]
    listener.close()


def reported(informer, records, address, resource, reason):
    """Waits up to REPORT_WITHIN for a warning and a last_error that name
    the address, the resource and the reason; returns the warnings."""
    def names(text):
        return address in text and resource in text and reason in text
    deadline = time.monotonic() + REPORT_WITHIN
    while time.monotonic() < deadline:
        warnings = [m for m in records.messages() if names(m)]
        error = informer.last_error
        if warnings and error is not None and names(str(error)):
            return warnings
        time.sleep(0.02)  # Polling the informer's thread's results.
    pytest.fail("within %ss: warnings %s, last_error %r; want both to name "
                "%s, %s and %r" % (REPORT_WITHIN, records.messages(),
                                   informer.last_error, address, resource,
                                   reason))


@pytest.mark.parametrize("target,reason", [
    ("closed port", "Connection refused"),
    ("not gRPC", "HTTP/2"),
])
def test_unreachable_server_is_reported(target, reason, records, request):
    address = (closed_port() if target == "closed port"
               else request.getfixturevalue("not_grpc"))
    channel = connect(ConnectionOptions([address]))
    informer = Informer(channel, "configmaps")
    try:
        informer.start()
        reported(informer, records, address, "configmaps", reason)
        error = informer.last_error
        assert isinstance(error, InformerError)
        assert error.code() == grpc.StatusCode.UNAVAILABLE
        # The informer keeps retrying: more failures are reported.
        count = len(records.messages())
        deadline = time.monotonic() + REPORT_WITHIN
        while len(records.messages()) == count:
            assert time.monotonic() < deadline, "the informer stopped retrying"
            time.sleep(0.02)
    finally:
        informer.stop(REPORT_WITHIN)
        channel.close()


def test_unserved_resource_is_reported(tmp_path, records):
    # The live informerd serves configmaps and pods; secrets exist in the
    # apiserver but are not served.
    with live_cluster(str(tmp_path)) as (_, informerd, _):
        channel = connect(ConnectionOptions([informerd.grpc_address]))
        informer = Informer(channel, "secrets")
        try:
            informer.start()
            reported(informer, records, informerd.grpc_address, "secrets",
                     "not served")
            assert informer.last_error.code() == grpc.StatusCode.NOT_FOUND
        finally:
            informer.stop(REPORT_WITHIN)
            channel.close()
