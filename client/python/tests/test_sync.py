"""CacheSync: the informer's stream protocol, driven by scripted events."""

import grpc

from informerd import ResourceEventHandler, Store
from informerd.sync import CacheSync
from objects_for_tests import event


class Recorder(ResourceEventHandler):
    def __init__(self):
        self.calls = []

    def on_add(self, obj):
        self.calls.append("ADD %s %s" % (obj.key, obj.resource_version))

    def on_update(self, old, new):
        self.calls.append("UPDATE %s %s %s" % (
            new.key, old.resource_version, new.resource_version))

    def on_delete(self, obj, final_state_unknown):
        self.calls.append("DELETE %s %s%s" % (
            obj.key, obj.resource_version,
            " final-state-unknown" if final_state_unknown else ""))

    def on_synced(self):
        self.calls.append("SYNCED")


def new_sync():
    store = Store()
    recorder = Recorder()
    return CacheSync(store, [recorder]), store, recorder


def feed(sync, *events):
    for e in events:
        sync.handle(e)


def initial_sync(sync, *objects, rv="10"):
    assert sync.next_stream() == ("", True)
    feed(sync, *[event("ADDED", key, v) for key, v in objects],
         event("BOOKMARK", rv=rv, initial_events_end=True))


def test_first_stream_lists_and_syncs_after_initial_events_end():
    sync, store, recorder = new_sync()
    assert sync.next_stream() == ("", True)
    feed(sync, event("ADDED", "ns/a", "5"), event("ADDED", "ns/b", "6"))
    assert recorder.calls == [] and not sync.synced and len(store) == 0
    feed(sync, event("BOOKMARK", rv="10", initial_events_end=True))
    assert recorder.calls == ["ADD ns/a 5", "ADD ns/b 6", "SYNCED"]
    assert sync.synced
    assert sync.next_stream() == ("10", False)


def test_live_events_and_resume_point():
    sync, store, recorder = new_sync()
    initial_sync(sync, ("ns/a", "5"))
    recorder.calls.clear()
    feed(sync,
         event("MODIFIED", "ns/a", "11"),
         event("ADDED", "ns/c", "12"),
         event("BOOKMARK", rv="13"),
         event("DELETED", "ns/c", "14"))
    assert recorder.calls == [
        "UPDATE ns/a 5 11", "ADD ns/c 12", "DELETE ns/c 14"]
    assert store.keys() == ["ns/a"]
    sync.stream_ended(grpc.StatusCode.UNAVAILABLE)
    assert sync.next_stream() == ("14", False)


def test_replayed_events_change_nothing():
    sync, store, recorder = new_sync()
    initial_sync(sync, ("ns/a", "5"))
    recorder.calls.clear()
    feed(sync,
         event("ADDED", "ns/a", "5"),        # known key, same version
         event("DELETED", "ns/zzz", "15"),   # unknown key
         event("ADDED", "ns/a", "16"))       # known key: an update
    assert recorder.calls == ["UPDATE ns/a 5 16"]


def test_live_final_state_unknown_is_passed_through():
    sync, _, recorder = new_sync()
    initial_sync(sync, ("ns/a", "5"))
    feed(sync, event("DELETED", "ns/a", "5", final_state_unknown=True))
    assert recorder.calls[-1] == "DELETE ns/a 5 final-state-unknown"


def test_out_of_range_relists_by_diff():
    sync, store, recorder = new_sync()
    initial_sync(sync, ("ns/same", "1"), ("ns/changed", "2"), ("ns/gone", "3"))
    recorder.calls.clear()
    sync.stream_ended(grpc.StatusCode.OUT_OF_RANGE)
    assert sync.next_stream() == ("", True)
    feed(sync, event("ADDED", "ns/same", "1"),
         event("ADDED", "ns/changed", "8"), event("ADDED", "ns/new", "9"))
    assert recorder.calls == []  # Nothing before the listing is complete.
    feed(sync, event("BOOKMARK", rv="20", initial_events_end=True))
    assert recorder.calls == [
        "UPDATE ns/changed 2 8", "ADD ns/new 9",
        "DELETE ns/gone 3 final-state-unknown"]
    assert store.keys() == ["ns/changed", "ns/new", "ns/same"]
    assert sync.next_stream() == ("20", False)


def test_resource_exhausted_relists():
    sync, _, _ = new_sync()
    initial_sync(sync)
    sync.stream_ended(grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert sync.next_stream() == ("", True)


def test_other_errors_and_clean_ends_resume():
    sync, _, _ = new_sync()
    initial_sync(sync, rv="7")
    for code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL,
                 grpc.StatusCode.CANCELLED, None):
        sync.stream_ended(code)
        assert sync.next_stream() == ("7", False)


def test_stream_broken_during_initial_events_lists_again_from_scratch():
    sync, store, recorder = new_sync()
    assert sync.next_stream() == ("", True)
    feed(sync, event("ADDED", "ns/a", "5"))
    sync.stream_ended(grpc.StatusCode.UNAVAILABLE)
    assert sync.next_stream() == ("", True)
    feed(sync, event("ADDED", "ns/b", "6"),
         event("BOOKMARK", rv="10", initial_events_end=True))
    assert recorder.calls == ["ADD ns/b 6", "SYNCED"]
    assert store.keys() == ["ns/b"]


def test_synced_is_reported_once_across_relists():
    sync, _, recorder = new_sync()
    initial_sync(sync, ("ns/a", "1"))
    sync.stream_ended(grpc.StatusCode.OUT_OF_RANGE)
    initial_sync(sync, ("ns/a", "1"), rv="30")
    assert recorder.calls.count("SYNCED") == 1
    assert sync.synced


def test_initial_events_end_without_version_lists_again():
    sync, _, _ = new_sync()
    initial_sync(sync, ("ns/a", "1"), rv="")
    assert sync.next_stream() == ("", True)


def test_handler_exception_does_not_stop_other_handlers():
    class Broken(ResourceEventHandler):
        def on_add(self, obj):
            raise RuntimeError("bug")

    store = Store()
    recorder = Recorder()
    sync = CacheSync(store, [Broken(), recorder])
    initial_sync(sync, ("ns/a", "1"))
    assert recorder.calls == ["ADD ns/a 1", "SYNCED"]
    assert store.keys() == ["ns/a"]
