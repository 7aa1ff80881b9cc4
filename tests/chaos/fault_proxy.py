"""A loopback TCP proxy between informerd and the kube-apiserver that the
chaos suite turns faults on and off in (Python 3 stdlib only).

Bytes pass through untouched (TLS included), so a fault looks to informerd
exactly like a sick network or server:
  set_delay(ms)    every forwarded chunk waits a random 0..ms first
  set_stalled(b)   while stalled nothing is forwarded; connections stay open
  reset_all()      every open connection ends with a TCP RST
  cut_mid_chunk()  each connection forwards only the first half of its next
                   apiserver-to-informerd chunk, then is reset: a watch event
                   (or a TLS record) cut in the middle

Thread-safe; runs in daemon threads of the calling process.
"""

from __future__ import annotations

import random
import socket
import struct
import threading
import time
from typing import Set


def _reset(sock: socket.socket) -> None:
    """Ends sock with an RST; wakes a thread blocked reading it."""
    try:
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class _Connection:
    def __init__(self, client: socket.socket, upstream: socket.socket):
        self.client = client
        self.upstream = upstream
        self.cut_armed = False
        self.closed = False
        self.open_directions = 2
        self.lock = threading.Lock()

    def reset(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
        _reset(self.client)
        _reset(self.upstream)

    def finish_direction(self, sink: socket.socket) -> bool:
        """One side ended cleanly: pass its FIN on, so the other reads all
        data first. True when both directions have ended."""
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        with self.lock:
            self.open_directions -= 1
            done = self.open_directions == 0 and not self.closed
            if done:
                self.closed = True
        if done:
            self.client.close()
            self.upstream.close()
        return done


class FaultProxy:
    def __init__(self, target_host: str, target_port: int):
        self._target = (target_host, target_port)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._connections: Set[_Connection] = set()
        self._flowing = threading.Event()
        self._flowing.set()
        self._delay_ms = 0
        self.accepted = 0
        self.cuts = 0
        threading.Thread(target=self._accept_loop, daemon=True).start()

    # --- faults ---

    def set_delay(self, ms: int) -> None:
        with self._lock:
            self._delay_ms = ms

    def set_stalled(self, stalled: bool) -> None:
        if stalled:
            self._flowing.clear()
        else:
            self._flowing.set()

    def reset_all(self) -> int:
        """Returns how many connections were reset."""
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            conn.reset()
        return len(connections)

    def cut_mid_chunk(self) -> None:
        with self._lock:
            for conn in self._connections:
                conn.cut_armed = True

    def open_connections(self) -> int:
        with self._lock:
            return len(self._connections)

    # --- plumbing ---

    def _accept_loop(self) -> None:
        while True:
            client, _ = self._listener.accept()
            try:
                upstream = socket.create_connection(self._target, timeout=10)
                upstream.settimeout(None)
            except OSError:
                # The apiserver is down: a refused connection, as it would be.
                _reset(client)
                continue
            conn = _Connection(client, upstream)
            with self._lock:
                self._connections.add(conn)
                self.accepted += 1
            threading.Thread(target=self._pump, args=(conn, client, upstream, False),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(conn, upstream, client, True),
                             daemon=True).start()

    def _pump(self, conn: _Connection, source: socket.socket, sink: socket.socket,
              downstream: bool) -> None:
        clean_end = False
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    clean_end = True
                    break
                self._flowing.wait()
                with self._lock:
                    delay_ms = self._delay_ms
                if delay_ms:
                    time.sleep(random.uniform(0, delay_ms) / 1000.0)
                if downstream and conn.cut_armed and len(data) >= 2:
                    sink.sendall(data[:len(data) // 2])
                    with self._lock:
                        self.cuts += 1
                    break
                sink.sendall(data)
        except OSError:
            pass
        if clean_end and not conn.finish_direction(sink):
            return
        conn.reset()
        with self._lock:
            self._connections.discard(conn)
