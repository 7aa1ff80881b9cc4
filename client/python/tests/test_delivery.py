"""Per-handler delivery against an in-process scripted server: handlers
added to a running informer, removal, isolation of a slow handler, resync,
the queue bound and transforms."""

import threading
import time

import pytest

from informerd import (Backoff, CachedObject, HandlerFuncs, Informer,
                       ResourceEventHandler, strip_managed_fields)
from objects_for_tests import event
from recorders import TIMEOUT, Recorder

SYNCED_AB = [event("ADDED", "ns/a", "5"), event("ADDED", "ns/b", "6"),
             event("BOOKMARK", rv="10", initial_events_end=True)]


@pytest.fixture
def informer_on(fake_caches):
    """informer_on(scripts, **informer_args) -> (servicer, informer), not
    started; stopped after the test."""

    def make(scripts, **informer_args):
        servicer, channel = fake_caches.start(scripts)
        informer_args.setdefault("backoff", Backoff(0.001, 0.001))
        informer = Informer(channel, "configmaps", **informer_args)
        fake_caches.on_exit(lambda: informer.stop(TIMEOUT))
        return servicer, informer

    return make


def add(informer, handler, **kwargs):
    handler.registration = informer.add_event_handler(handler, **kwargs)
    return handler.registration


def replay(calls):
    """key -> rv from ADD/UPDATE/DELETE lines; asserts the contract: no ADD
    of a known key, UPDATE's old rv is the last one seen, no unknown
    DELETE."""
    state = {}
    for line in calls:
        kind, *rest = line.split()
        if kind == "ADD":
            assert rest[0] not in state, line
            state[rest[0]] = rest[1]
        elif kind == "UPDATE":
            assert state.get(rest[0]) == rest[1], line
            state[rest[0]] = rest[2]
        elif kind == "DELETE":
            assert state.pop(rest[0], None) is not None, line
    return state


def test_handler_added_when_synced_gets_cache_as_adds_then_live(informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)])
    early = Recorder()
    add(informer, early)
    informer.start()
    early.wait_for(3)
    late = Recorder()
    registration = add(informer, late)
    assert registration.wait_for_sync(TIMEOUT)
    servicer.push(event("MODIFIED", "ns/a", "11"))
    servicer.push(event("ADDED", "ns/c", "12"))
    servicer.push(event("DELETED", "ns/b", "13"))
    late.wait_for(6)
    early.wait_for(6)
    assert late.calls == [
        "ADD ns/a 5", "ADD ns/b 6", "SYNCED", "UPDATE ns/a 5 11",
        "ADD ns/c 12", "DELETE ns/b 13 False"]
    assert early.calls == late.calls
    assert registration.has_synced()


def test_handler_added_before_sync_gets_the_listing(informer_on):
    servicer, informer = informer_on(
        [([event("ADDED", "ns/a", "5")], None)])
    informer.start()
    recorder = Recorder()
    registration = add(informer, recorder)
    assert servicer.wait_for_requests(1)
    assert not registration.has_synced()
    servicer.push(event("BOOKMARK", rv="10", initial_events_end=True))
    recorder.wait_for(2)
    assert recorder.calls == ["ADD ns/a 5", "SYNCED"]
    assert registration.has_synced()


def test_handler_added_while_events_flow_misses_and_repeats_nothing(
        informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)])
    informer.start()
    assert informer.wait_for_sync(TIMEOUT)
    late = Recorder()

    def updates():
        for rv in range(11, 311):
            servicer.push(event("MODIFIED", "ns/a", str(rv)))
            if rv == 100:
                add(informer, late)  # While the stream delivers.

    pusher = threading.Thread(target=updates)
    pusher.start()
    pusher.join(TIMEOUT)
    late.wait_until(lambda calls: calls and calls[-1] == "UPDATE ns/a 309 310")
    assert late.calls[:3] == ["ADD ns/a %s" % late.calls[0].split()[2],
                              "ADD ns/b 6", "SYNCED"]
    assert replay(late.calls) == {"ns/a": "310", "ns/b": "6"}


def test_removed_handler_gets_nothing_more(informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)])
    kept, removed = Recorder(), Recorder()
    add(informer, kept)
    registration = add(informer, removed)
    informer.start()
    kept.wait_for(3)
    removed.wait_for(3)
    informer.remove_event_handler(registration, TIMEOUT)
    informer.remove_event_handler(registration, TIMEOUT)  # No-op.
    servicer.push(event("ADDED", "ns/c", "12"))
    kept.wait_for(4)
    assert kept.calls[-1] == "ADD ns/c 12"
    assert removed.calls == ["ADD ns/a 5", "ADD ns/b 6", "SYNCED"]


def test_slow_handler_delays_neither_others_nor_reading(informer_on):
    received_at = {}

    def timestamp(obj):  # The transform runs as the informer receives.
        received_at[(obj.key, obj.resource_version)] = time.monotonic()
        return obj

    servicer, informer = informer_on(
        [([event("BOOKMARK", rv="1", initial_events_end=True)], None)],
        transform=timestamp)
    slow, fast = Recorder(work=1.0), Recorder()
    add(informer, slow)
    add(informer, fast)
    informer.start()
    fast.wait_for(1)
    sent = [("ns/x%d" % i, str(10 + i)) for i in range(5)]
    for key, rv in sent:
        servicer.push(event("ADDED", key, rv))
    fast.wait_for(6)
    fast_calls, fast_times = fast.snapshot()
    slow_calls, _ = slow.snapshot()
    assert fast_calls[1:] == ["ADD %s %s" % item for item in sent]
    assert sorted(informer.lister.keys()) == [key for key, _ in sent]
    # The slow handler is still at its first few calls (1 s each).
    assert len(slow_calls) <= 2, slow_calls
    print("fast handler delay after the server sent (s):",
          [round(arrived - servicer.sent_at[item], 4)
           for item, arrived in zip(sent, fast_times[1:])])
    for item, arrived in zip(sent, fast_times[1:]):
        assert arrived - servicer.sent_at[item] < 0.05, (item, arrived)
        assert arrived - received_at[item] < 0.05, (item, arrived)


def test_resync_only_for_the_handler_asking_at_its_period(informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)])
    every_200ms, every_500ms, never = Recorder(), Recorder(), Recorder()
    same_object = []

    class Identity(ResourceEventHandler):
        def on_update(self, old, new):
            same_object.append(old is new)

    add(informer, every_200ms, resync_period=0.2)
    fast_registration = every_200ms.registration
    add(informer, Identity(), resync_period=0.2)
    add(informer, every_500ms, resync_period=0.5)
    add(informer, never)
    started = time.monotonic()
    informer.start()
    # Three rounds of the 500 ms handler: two objects each.
    every_500ms.wait_for(3 + 3 * 2, timeout=TIMEOUT)

    def rounds(recorder):
        calls, times = recorder.snapshot()
        assert set(calls[3:]) <= {"UPDATE ns/a 5 5", "UPDATE ns/b 6 6"}
        return [t for line, t in zip(calls[3:], times[3:])
                if line == "UPDATE ns/a 5 5"]

    fast, slow = rounds(every_200ms), rounds(every_500ms)
    assert never.calls == ["ADD ns/a 5", "ADD ns/b 6", "SYNCED"]
    # Never early, and on time within scheduling noise.
    fast_gaps = [b - a for a, b in zip(fast, fast[1:])]
    slow_gaps = [b - a for a, b in zip(slow, slow[1:])]
    assert fast[0] - started >= 0.2 and slow[0] - started >= 0.5
    assert min(fast_gaps) >= 0.19 and sum(fast_gaps) / len(fast_gaps) < 0.3
    assert min(slow_gaps) >= 0.49 and sum(slow_gaps) / len(slow_gaps) < 0.65
    assert len(fast) >= 5
    assert fast_registration.resyncs >= len(fast)
    assert same_object and all(same_object)
    # From the cache: the server saw one Watch, no new listing.
    assert len(servicer.requests) == 1


def test_lagging_handler_catches_up_from_the_cache(informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)],
                                     handler_queue_limit=3)
    entered, release = threading.Event(), threading.Event()
    recorder = Recorder()

    class BlocksOnVersion7(ResourceEventHandler):
        def on_add(self, obj):
            recorder.on_add(obj)

        def on_update(self, old, new):
            recorder.on_update(old, new)
            if new.resource_version == "7":
                entered.set()
                release.wait(TIMEOUT)

        def on_delete(self, obj, final_state_unknown):
            recorder.on_delete(obj, final_state_unknown)

        def on_synced(self):
            recorder.on_synced()

    registration = informer.add_event_handler(BlocksOnVersion7())
    informer.start()
    recorder.wait_for(3)
    servicer.push(event("MODIFIED", "ns/a", "7"))
    assert entered.wait(TIMEOUT)
    for change in (event("MODIFIED", "ns/a", "8"), event("ADDED", "ns/c", "9"),
                   event("DELETED", "ns/b", "10"),
                   event("MODIFIED", "ns/a", "11")):
        servicer.push(change)
    # The informer reads on while the handler is stuck.
    deadline = time.monotonic() + TIMEOUT
    while informer.lister.keys() != ["ns/a", "ns/c"] or \
            informer.lister.get("ns", "a").resource_version != "11":
        assert time.monotonic() < deadline, informer.lister.keys()
        time.sleep(0.01)  # Polling the cache for a condition.
    release.set()
    recorder.wait_for(7)
    assert recorder.calls == [
        "ADD ns/a 5", "ADD ns/b 6", "SYNCED", "UPDATE ns/a 5 7",
        "UPDATE ns/a 7 11", "ADD ns/c 9", "DELETE ns/b 6 True"]
    assert registration.catch_ups == 1
    servicer.push(event("MODIFIED", "ns/c", "12"))
    recorder.wait_for(8)
    assert recorder.calls[-1] == "UPDATE ns/c 9 12"


def test_handler_exception_does_not_stop_its_delivery(informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)])
    seen = []
    done = threading.Event()

    def on_add(obj):
        seen.append(obj.key)
        if obj.key == "ns/c":
            done.set()
        raise RuntimeError("bug")

    informer.add_event_handler(HandlerFuncs(on_add=on_add))
    informer.start()
    servicer.push(event("ADDED", "ns/c", "12"))
    assert done.wait(TIMEOUT)
    assert seen == ["ns/a", "ns/b", "ns/c"]


def _drop_json(obj):
    return CachedObject(obj.namespace, obj.name, obj.resource_version,
                        obj.uid, obj.labels, b"{}")


def test_transform_applies_before_store_and_handlers(informer_on):
    servicer, informer = informer_on([(SYNCED_AB, None)],
                                     transform=_drop_json)
    seen = []
    informer.add_event_handler(HandlerFuncs(
        on_add=lambda obj: seen.append(("add", obj.json)),
        on_update=lambda old, new: seen.append(("update", new.json)),
        on_delete=lambda obj, _: seen.append(("delete", obj.json))))
    informer.start()
    assert informer.wait_for_sync(TIMEOUT)
    servicer.push(event("MODIFIED", "ns/a", "11"))
    servicer.push(event("DELETED", "ns/b", "12"))
    deadline = time.monotonic() + TIMEOUT
    while len(seen) < 4:
        assert time.monotonic() < deadline, seen
        time.sleep(0.01)  # Polling for a condition.
    assert seen == [("add", b"{}"), ("add", b"{}"), ("update", b"{}"),
                    ("delete", b"{}")]
    assert [o.json for o in informer.lister.list()] == [b"{}"]
    assert informer.transform is _drop_json


def test_transform_changing_the_key_fails_the_stream(informer_on):
    def rename(obj):
        return CachedObject(obj.namespace, "other", obj.resource_version)

    servicer, informer = informer_on([(SYNCED_AB, None)], transform=rename)
    informer.start()
    assert servicer.wait_for_requests(2)
    assert not informer.has_synced()
    assert "changed the key" in str(informer.last_error)


def test_strip_managed_fields():
    obj = CachedObject("ns", "a", "1", json=(
        b'{"metadata":{"name":"a","managedFields":[{"manager":"x"}]},'
        b'"data":{"k":"v"}}'))
    stripped = strip_managed_fields(obj)
    assert stripped.json == b'{"metadata":{"name":"a"},"data":{"k":"v"}}'
    assert (stripped.key, stripped.resource_version) == ("ns/a", "1")
    plain = CachedObject("ns", "b", "1", json=b'{"metadata":{"name":"b"}}')
    assert strip_managed_fields(plain) is plain


def test_negative_periods_and_limits_are_refused(informer_on):
    _, informer = informer_on([])
    with pytest.raises(ValueError, match="resync_period"):
        informer.add_event_handler(Recorder(), resync_period=-1)
    with pytest.raises(ValueError, match="handler_queue_limit"):
        informer_on([], handler_queue_limit=0)
