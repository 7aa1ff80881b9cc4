"""The shared conformance vectors (tests/conformance/) against the Python
client: label selectors as the apiserver judged them, and relist diffs.

The client has no field selectors (informerd evaluates them), so only the
label selector vectors apply here.
"""

import json
import os
from collections import defaultdict

import pytest

from informerd import ChangeType, diff_relist
from informerd.objects import CachedObject
from informerd.selectors import SelectorError, parse_label_selector

VECTORS = os.path.join(os.path.dirname(os.path.realpath(__file__)),
                       "..", "..", "..", "tests", "conformance")


def load(name):
    with open(os.path.join(VECTORS, name)) as f:
        return json.load(f)


SELECTORS = load("selectors.json")
RELIST = load("relist.json")


@pytest.mark.parametrize("case", SELECTORS["label_selectors"],
                         ids=lambda c: repr(c["selector"]))
def test_label_selector_vector(case):
    try:
        selector = parse_label_selector(case["selector"])
    except SelectorError as e:
        assert not case["valid"], "rejected a selector the apiserver accepts: %s" % e
        return
    assert case["valid"], "accepted a selector the apiserver rejects"
    matches = sorted(o["name"] for o in SELECTORS["objects"]
                     if selector.matches(o["labels"]))
    assert matches == case["matches"]


def cached(spec):
    return CachedObject(namespace=spec["namespace"], name=spec["name"],
                        resource_version=spec["resource_version"], uid=spec["uid"])


def per_key(events):
    """{key: [(type, old version, new version), ...]}: the order that
    matters, within one key."""
    out = defaultdict(list)
    for e in events:
        out[(e["namespace"], e["name"])].append(
            (e["type"], e["old_resource_version"], e["new_resource_version"]))
    return dict(out)


@pytest.mark.parametrize("case", RELIST["cases"], ids=lambda c: c["name"])
def test_relist_vector(case):
    before = {o.key: o for o in map(cached, case["before"])}
    changes = diff_relist(before, [cached(o) for o in case["after"]])
    got = per_key({
        "type": c.type.name,
        "namespace": (c.old or c.new).namespace,
        "name": (c.old or c.new).name,
        "old_resource_version": c.old.resource_version if c.old else None,
        "new_resource_version": c.new.resource_version if c.new else None,
    } for c in changes)
    assert got == per_key(case["events"])
    assert all(c.type in ChangeType for c in changes)


RESUME = load("resume.json")


def watch_event(step):
    from informerd.proto import pb
    e = pb.WatchEvent(type=getattr(pb.WatchEvent, step["type"]),
                      resource_version=step["resource_version"],
                      initial_events_end=step.get("initial_events_end", False))
    if step["type"] != "BOOKMARK":
        e.object.namespace = step["namespace"]
        e.object.name = step["name"]
        e.object.resource_version = step["resource_version"]
    return e


@pytest.mark.parametrize("case", RESUME["cases"], ids=lambda c: c["name"])
def test_resume_vector(case):
    import grpc
    from informerd import Store
    from informerd.sync import CacheSync
    sync = CacheSync(Store(), [])
    for i, step in enumerate(case["steps"]):
        if step["step"] == "next":
            rv, initial = sync.next_stream()
            assert {"resource_version": rv, "send_initial_events": initial} == \
                step["want"], "step %d" % i
        elif step["step"] == "event":
            sync.handle(watch_event(step))
        else:
            code = step["code"]
            sync.stream_ended(None if code is None else getattr(grpc.StatusCode, code))
