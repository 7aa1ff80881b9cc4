#!/usr/bin/env python3
"""An attacker of informerd's admin HTTP port (issue 26, finding 2), with
Python's standard library only, so it runs in any image that has Python:
the node suite runs it in a pod against an informerd pod's IP.

For SECONDS it keeps CONNECTIONS connections trickling a request head one
byte per second (reopening those the server closes), and POSTS connections
streaming chunked bodies as fast as the server takes them. Meanwhile it
asks /healthz once a second with a 2 s timeout, as the kubelet's probe
does. It prints one JSON line: what it sent and how its probes fared.

Usage: admin_flood.py HOST:PORT [--connections N] [--posts N] [--seconds S]
Exits 0 whatever the probes saw: the caller judges.
"""

import argparse
import errno
import json
import selectors
import socket
import threading
import time
import http.client

TRICKLE_HEAD = b"GET /healthz HTTP/1.1\r\nHost: informerd\r\nX-Slow: " + b"a" * 4096


class Trickler:
    """Connections that send their request head one byte a second."""

    def __init__(self, host, port, count):
        self.host, self.port, self.count = host, port, count
        self.selector = selectors.DefaultSelector()
        self.sockets = {}  # socket -> bytes of TRICKLE_HEAD sent
        self.opened = 0
        self.closed_by_server = 0
        self.refused = 0

    def fill(self):
        while len(self.sockets) < self.count:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            code = s.connect_ex((self.host, self.port))
            if code not in (0, errno.EINPROGRESS):
                s.close()
                self.refused += 1
                return
            self.sockets[s] = 0
            self.selector.register(s, selectors.EVENT_READ)
            self.opened += 1

    def drop(self, s):
        self.selector.unregister(s)
        del self.sockets[s]
        s.close()

    def tick(self):
        """Sends one more byte on every connection and reaps closed ones."""
        for key, _ in self.selector.select(timeout=0):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                self.closed_by_server += 1
                self.drop(s)
        for s in list(self.sockets):
            sent = self.sockets[s]
            try:
                s.send(TRICKLE_HEAD[sent % len(TRICKLE_HEAD):][:1])
                self.sockets[s] = sent + 1
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                self.closed_by_server += 1
                self.drop(s)
        self.fill()

    def close(self):
        for s in list(self.sockets):
            self.drop(s)


def post_forever(host, port, stop, totals, lock):
    chunk = b"%x\r\n%s\r\n" % (65536, b"x" * 65536)
    while not stop.is_set():
        try:
            with socket.create_connection((host, port), timeout=5) as s:
                s.sendall(b"POST /healthz HTTP/1.1\r\nHost: informerd\r\n"
                          b"Transfer-Encoding: chunked\r\n\r\n")
                while not stop.is_set():
                    s.sendall(chunk)
                    with lock:
                        totals["post_bytes"] += len(chunk)
        except OSError:
            with lock:
                totals["post_connections_ended"] += 1
            time.sleep(0.05)  # pacing the attack's reconnects, not synchronisation


def probe(host, port):
    """(ok, seconds) of one GET /healthz with the kubelet's 2 s timeout."""
    start = time.monotonic()
    try:
        connection = http.client.HTTPConnection(host, port, timeout=2)
        connection.request("GET", "/healthz")
        ok = connection.getresponse().status == 200
        connection.close()
    except OSError:
        ok = False
    return ok, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target", help="HOST:PORT of the admin port")
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--posts", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    port = int(port)

    stop = threading.Event()
    lock = threading.Lock()
    totals = {"post_bytes": 0, "post_connections_ended": 0}
    posters = [threading.Thread(target=post_forever, args=(host, port, stop, totals, lock),
                                daemon=True) for _ in range(args.posts)]
    for t in posters:
        t.start()
    trickler = Trickler(host, port, args.connections)
    trickler.fill()
    probes = []
    end = time.monotonic() + args.seconds
    next_probe = time.monotonic()
    while time.monotonic() < end:
        trickler.tick()
        if time.monotonic() >= next_probe:
            probes.append(probe(host, port))
            next_probe += 1
        # The attack's own pace: one byte per connection per second.
        time.sleep(max(0.0, min(1.0, next_probe - time.monotonic())))
    stop.set()
    trickler.close()
    latencies = sorted(seconds for ok, seconds in probes)
    with lock:
        result = {
            "target": args.target,
            "seconds": args.seconds,
            "trickling_connections": args.connections,
            "trickle_connections_opened": trickler.opened,
            "trickle_connections_closed_by_server": trickler.closed_by_server,
            "connects_refused": trickler.refused,
            "post_streams": args.posts,
            "post_bytes_sent": totals["post_bytes"],
            "post_connections_ended": totals["post_connections_ended"],
            "probes": len(probes),
            "probes_failed": sum(1 for ok, _ in probes if not ok),
            "probe_max_seconds": round(latencies[-1], 3) if latencies else None,
        }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
