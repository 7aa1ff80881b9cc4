"""Informer against an in-process scripted server: threading, resume,
relist and shutdown, with the protocol details left to test_sync.py."""

import grpc
import pytest

from informerd import (Backoff, ConnectionOptions, Informer,
                       ResourceEventHandler, SelectorError, connect, pb)
from fake_server import ScriptedCache, start_server
from objects_for_tests import event
from recorders import TIMEOUT, Recorder


@pytest.fixture
def run():
    started = []

    def start(scripts, **informer_args):
        servicer = ScriptedCache(scripts)
        server, port = start_server(servicer)
        channel = connect(ConnectionOptions(["127.0.0.1:%d" % port]))
        informer_args.setdefault("backoff", Backoff(0.001, 0.001))
        informer = Informer(channel, "configmaps", **informer_args)
        recorder = Recorder()
        informer.add_event_handler(recorder)
        started.append((servicer, server, channel, informer))
        informer.start()
        return servicer, informer, recorder

    yield start
    for servicer, server, channel, informer in started:
        informer.stop(TIMEOUT)
        servicer.close()
        channel.close()
        server.stop(None)


def test_resumes_then_relists_by_diff(run):
    initial = [event("ADDED", "ns/a", "5"), event("ADDED", "ns/b", "6"),
               event("BOOKMARK", rv="10", initial_events_end=True),
               event("MODIFIED", "ns/a", "11")]
    resumed = [event("DELETED", "ns/b", "12")]
    relisted = [event("ADDED", "ns/a", "11"), event("ADDED", "ns/c", "20"),
                event("BOOKMARK", rv="21", initial_events_end=True)]
    servicer, informer, recorder = run([
        (initial, (grpc.StatusCode.UNAVAILABLE, "shutting down")),
        (resumed, (grpc.StatusCode.RESOURCE_EXHAUSTED, "fell behind")),
        (relisted, None)], namespace="ns", label_selector="app=web")
    recorder.wait_for(6)
    assert recorder.calls == [
        "ADD ns/a 5", "ADD ns/b 6", "SYNCED", "UPDATE ns/a 5 11",
        "DELETE ns/b 12 False", "ADD ns/c 20"]
    assert servicer.wait_for_requests(3, TIMEOUT)
    assert [(r.resource_version, r.send_initial_events)
            for r in servicer.requests] == [
        ("", True), ("11", False), ("", True)]
    first = servicer.requests[0]
    assert (first.resource.resource, first.namespace, first.label_selector,
            first.allow_bookmarks) == ("configmaps", "ns", "app=web", True)
    assert informer.has_synced()
    assert informer.lister.keys() == ["ns/a", "ns/c"]
    assert informer.last_error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_relist_reports_vanished_objects_as_final_state_unknown(run):
    initial = [event("ADDED", "ns/a", "5"),
               event("BOOKMARK", rv="10", initial_events_end=True)]
    relisted = [event("BOOKMARK", rv="30", initial_events_end=True)]
    _, informer, recorder = run([
        (initial, (grpc.StatusCode.UNAVAILABLE, "restarting")),
        ([], (grpc.StatusCode.OUT_OF_RANGE, "too old resource version")),
        (relisted, None)])
    recorder.wait_for(3)
    assert recorder.calls == ["ADD ns/a 5", "SYNCED", "DELETE ns/a 5 True"]
    assert len(informer.lister) == 0


def test_wait_for_sync_and_stop_while_streaming(run):
    servicer, informer, recorder = run([
        ([event("BOOKMARK", rv="1", initial_events_end=True)], None)])
    assert informer.wait_for_sync(TIMEOUT)
    informer.stop(TIMEOUT)
    informer.stop(TIMEOUT)  # Idempotent.
    assert recorder.calls == ["SYNCED"]
    assert len(servicer.requests) == 1


def test_not_synced_while_server_fails(run):
    servicer, informer, _ = run(
        [([], (grpc.StatusCode.NOT_FOUND, "resource not served"))] * 3)
    assert servicer.wait_for_requests(3, TIMEOUT)
    assert not informer.has_synced()
    assert not informer.wait_for_sync(0)


def test_bad_label_selector_fails_at_construction():
    with pytest.raises(SelectorError):
        Informer(grpc.insecure_channel("127.0.0.1:1"), "configmaps",
                 label_selector="a in b")


def test_projection_is_requested_and_checked(run):
    servicer, _, _ = run([], projection=pb.PROJECTION_METADATA)
    assert servicer.wait_for_requests(1, TIMEOUT)
    assert servicer.requests[0].projection == pb.PROJECTION_METADATA
    with pytest.raises(ValueError, match="projection"):
        Informer(grpc.insecure_channel("127.0.0.1:1"), "configmaps",
                 projection=7)


def test_handlers_cannot_be_added_after_stop(run):
    _, informer, _ = run([])
    informer.stop(TIMEOUT)
    with pytest.raises(RuntimeError, match="stopped"):
        informer.add_event_handler(ResourceEventHandler())


class CountingBackoff(Backoff):
    """Records how often the informer waited before a new stream."""

    def __init__(self):
        super().__init__(0.001, 0.001)
        self.waits = 0

    def next_delay(self):
        self.waits += 1
        return super().next_delay()


@pytest.mark.parametrize("code", [grpc.StatusCode.OUT_OF_RANGE,
                                  grpc.StatusCode.RESOURCE_EXHAUSTED])
def test_relist_codes_relist_at_once_then_back_off(run, code):
    synced = [event("ADDED", "ns/a", "5"),
              event("BOOKMARK", rv="10", initial_events_end=True)]
    backoff = CountingBackoff()
    servicer, informer, recorder = run([
        (synced, (code, "fell behind")),            # relist at once
        ([], (code, "again, no event in between")),  # wait first
        ([event("ADDED", "ns/a", "6"),
          event("BOOKMARK", rv="20", initial_events_end=True)],
         (code, "behind once more")),               # relist at once
        ([event("BOOKMARK", rv="30", initial_events_end=True)], None)],
        backoff=backoff)
    assert servicer.wait_for_requests(4, TIMEOUT)
    recorder.wait_for(4)
    assert [(r.resource_version, r.send_initial_events)
            for r in servicer.requests] == [("", True)] * 4
    assert backoff.waits == 1
    assert recorder.calls == ["ADD ns/a 5", "SYNCED", "UPDATE ns/a 5 6",
                              "DELETE ns/a 6 True"]
