"""SharedInformerFactory against an in-process scripted server."""

import threading

import grpc
import pytest

from informerd import (Backoff, HandlerFuncs, InformerKey,
                       SharedInformerFactory, pb)
from objects_for_tests import event
from recorders import TIMEOUT, Recorder

SYNCED = [event("ADDED", "ns/a", "5", labels={"app": "web"}),
          event("BOOKMARK", rv="10", initial_events_end=True)]


@pytest.fixture
def factory_on(fake_caches):
    """factory_on(scripts, **factory_args) -> (servicer, factory); shut
    down after the test."""

    def make(scripts, **factory_args):
        servicer, channel = fake_caches.start(scripts)
        factory_args.setdefault("backoff", lambda: Backoff(0.001, 0.001))
        factory = SharedInformerFactory(channel, **factory_args)
        fake_caches.on_exit(lambda: factory.shutdown(TIMEOUT))
        return servicer, factory

    return make


def _identity(obj):
    return obj


def test_same_key_same_informer_one_stream_each(factory_on):
    servicer, factory = factory_on([(SYNCED, None)] * 6)
    first = factory.informer("configmaps", namespace="ns",
                             label_selector="app=web")
    assert factory.informer("ConfigMaps", namespace="ns",
                            label_selector="app=web") is first
    others = [
        factory.informer("configmaps"),
        factory.informer("configmaps", namespace="ns"),
        factory.informer("configmaps", namespace="ns",
                         field_selector="metadata.name=a"),
        factory.informer("configmaps", namespace="ns",
                         transform=_identity),
        factory.informer("configmaps", namespace="ns",
                         projection=pb.PROJECTION_METADATA),
    ]
    assert len({id(i) for i in [first] + others}) == 6
    assert factory.informer("configmaps", namespace="ns",
                            transform=_identity) is others[3]
    # Handlers of several callers share the informer.
    one, two = Recorder(), Recorder()
    first.add_event_handler(one)
    factory.informer("configmaps", namespace="ns",
                     label_selector="app=web").add_event_handler(two)
    factory.start()
    synced = factory.wait_for_cache_sync(TIMEOUT)
    assert len(synced) == 6 and all(synced.values())
    assert synced[InformerKey("//configmaps", "ns", "app=web")]
    one.wait_for(2)
    two.wait_for(2)
    assert one.calls == two.calls == ["ADD ns/a 5", "SYNCED"]
    requests = {(r.namespace, r.label_selector, r.field_selector,
                 r.projection) for r in servicer.requests}
    assert len(servicer.requests) == 6
    assert requests == {
        ("ns", "app=web", "", pb.PROJECTION_FULL),
        ("", "", "", pb.PROJECTION_FULL),
        ("ns", "", "", pb.PROJECTION_FULL),
        ("ns", "", "metadata.name=a", pb.PROJECTION_FULL),
        ("ns", "", "", pb.PROJECTION_METADATA)}


def test_start_again_starts_only_the_new_informers(factory_on):
    servicer, factory = factory_on([(SYNCED, None)] * 2)
    maps = factory.informer("configmaps")
    factory.start()
    assert factory.wait_for_cache_sync(TIMEOUT) == {
        InformerKey("//configmaps"): True}
    pods = factory.informer("pods")
    assert not pods.started
    # Requested but not started: not reported, as in client-go.
    assert list(factory.wait_for_cache_sync(TIMEOUT)) == [
        InformerKey("//configmaps")]
    factory.start()
    assert pods.started and maps.started
    assert factory.wait_for_cache_sync(TIMEOUT) == {
        InformerKey("//configmaps"): True, InformerKey("//pods"): True}
    assert [r.resource.resource for r in servicer.requests] == [
        "configmaps", "pods"]


def test_wait_for_cache_sync_reports_each_informer(factory_on):
    servicer, factory = factory_on([
        (SYNCED, None),
        ([], (grpc.StatusCode.NOT_FOUND, "resource not served"))])
    factory.informer("configmaps")
    factory.start()
    assert servicer.wait_for_requests(1)
    factory.informer("secrets")
    factory.start()
    assert factory.wait_for_cache_sync(0.5) == {
        InformerKey("//configmaps"): True, InformerKey("//secrets"): False}


def test_shutdown_waits_for_a_running_handler(factory_on):
    _, factory = factory_on([(SYNCED, None)])
    entered, release, finished = (threading.Event(), threading.Event(),
                                  threading.Event())
    calls = []

    def on_add(obj):
        calls.append(obj.key)
        entered.set()
        release.wait(TIMEOUT)
        finished.set()

    factory.informer("configmaps").add_event_handler(HandlerFuncs(
        on_add=on_add, on_synced=lambda: calls.append("SYNCED")))
    factory.start()
    assert entered.wait(TIMEOUT)
    finished_when_shutdown_returned = []

    def shut_down():
        factory.shutdown(TIMEOUT)
        finished_when_shutdown_returned.append(finished.is_set())

    shutting = threading.Thread(target=shut_down)
    shutting.start()
    shutting.join(0.3)
    assert shutting.is_alive()  # The handler still runs.
    release.set()
    shutting.join(TIMEOUT)
    assert finished_when_shutdown_returned == [True]
    # The queued SYNCED was dropped, not delivered during shutdown.
    assert calls == ["ns/a"]
    with pytest.raises(RuntimeError, match="shut down"):
        factory.informer("pods")
    with pytest.raises(RuntimeError, match="shut down"):
        factory.start()
    factory.shutdown(TIMEOUT)  # A second time does nothing.


def test_resync_periods_default_per_informer_and_per_handler(factory_on):
    _, factory = factory_on([], default_resync_period=30)
    by_default = factory.informer("configmaps")
    own = factory.informer("pods", resync_period=5)
    # The first request's period wins, as in client-go.
    assert factory.informer("pods", resync_period=99) is own
    handler = HandlerFuncs()
    assert by_default.add_event_handler(handler).resync_period == 30
    assert own.add_event_handler(handler).resync_period == 5
    assert own.add_event_handler(handler, resync_period=0).resync_period == 0
    assert by_default.add_event_handler(
        handler, resync_period=1.5).resync_period == 1.5
    with pytest.raises(ValueError, match="default_resync_period"):
        SharedInformerFactory(None, default_resync_period=-1)


def test_indexers_are_added_by_each_caller(factory_on):
    servicer, factory = factory_on([(SYNCED, None)])

    def by_app(obj):
        return [obj.labels.get("app", "")]

    def other(obj):
        return []

    informer = factory.informer("configmaps")
    factory.start()
    assert all(factory.wait_for_cache_sync(TIMEOUT).values())
    # Added to a synced informer: indexes what is cached.
    assert factory.informer("configmaps", indexers={"app": by_app}) \
        is informer
    assert informer.lister.index_keys("app", "web") == ["ns/a"]
    assert [o.key for o in informer.lister.by_index("app", "web")] == ["ns/a"]
    factory.informer("configmaps", indexers={"app": by_app})  # Same: fine.
    with pytest.raises(ValueError, match="'app' already defined"):
        factory.informer("configmaps", indexers={"app": other})
