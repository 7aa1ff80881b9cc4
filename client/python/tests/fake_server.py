"""An in-process informerd Cache server that plays scripted Watch streams.

Each Watch call takes the next script: a list of WatchEvents to send, then
an optional (StatusCode, details) to abort with; a stream without an abort
stays open until the test ends, sending what the test push()es (each event
to one open stream), and records when it handed each pushed event to gRPC.
Requests and their metadata are recorded.
"""

import queue
import threading
import time
from concurrent import futures
from typing import List, Optional, Tuple

import grpc

from informerd import pb, pb_grpc


class ScriptedCache(pb_grpc.CacheServicer):

    def __init__(self, scripts: List[Tuple[list, Optional[tuple]]]) -> None:
        self._scripts = list(scripts)
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self.requests: List["pb.WatchRequest"] = []
        self.metadata: List[dict] = []
        self._pushed: "queue.Queue[pb.WatchEvent]" = queue.Queue()
        # (object key, resource_version) -> time.monotonic() of sending.
        self.sent_at = {}

    def Watch(self, request, context):
        with self._lock:
            self.requests.append(request)
            self.metadata.append(dict(context.invocation_metadata()))
            self._lock.notify_all()
            script = self._scripts.pop(0) if self._scripts else ([], None)
        events, abort = script
        for event in events:
            yield event
        if abort is not None:
            context.abort(*abort)
        # Open until the client cancels or the server stops.
        while context.is_active() and not self._closing.is_set():
            try:
                pushed = self._pushed.get(timeout=0.05)
            except queue.Empty:
                continue
            with self._lock:
                self.sent_at[(_key(pushed.object),
                              pushed.object.resource_version)] = \
                    time.monotonic()
            yield pushed

    def push(self, event) -> None:
        """Sends ``event`` on an open stream."""
        self._pushed.put(event)

    def ListResources(self, request, context):
        with self._lock:
            self.metadata.append(dict(context.invocation_metadata()))
        return pb.ListResourcesResponse()

    def wait_for_requests(self, count: int, timeout: float = 10) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: len(self.requests) >= count,
                                       timeout)

    def close(self) -> None:
        self._closing.set()


def _key(obj) -> str:
    return "%s/%s" % (obj.namespace, obj.name) if obj.namespace else obj.name


def start_server(servicer: ScriptedCache,
                 credentials: Optional[grpc.ServerCredentials] = None
                 ) -> Tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_CacheServicer_to_server(servicer, server)
    if credentials is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    return server, port
