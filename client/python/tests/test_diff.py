from informerd import ChangeType, diff_relist
from objects_for_tests import cached


def summary(changes):
    return [(c.type, (c.old or c.new).key,
             c.old.resource_version if c.old else None,
             c.new.resource_version if c.new else None) for c in changes]


def test_adds_updates_then_deletes():
    cached_objects = {o.key: o for o in [
        cached("ns/same", "1"), cached("ns/changed", "2"),
        cached("ns/gone-b", "3"), cached("ns/gone-a", "4")]}
    listed = [cached("ns/new", "9"), cached("ns/changed", "7"),
              cached("ns/same", "1")]
    assert summary(diff_relist(cached_objects, listed)) == [
        (ChangeType.ADD, "ns/new", None, "9"),
        (ChangeType.UPDATE, "ns/changed", "2", "7"),
        (ChangeType.DELETE, "ns/gone-a", "4", None),
        (ChangeType.DELETE, "ns/gone-b", "3", None),
    ]


def test_nothing_changed_yields_nothing():
    objects = [cached("ns/a", "1"), cached("b", "2")]
    assert diff_relist({o.key: o for o in objects}, objects) == []


def test_empty_cache_is_all_adds_in_listed_order():
    listed = [cached("ns/b", "1"), cached("ns/a", "2")]
    assert [c.new.key for c in diff_relist({}, listed)] == ["ns/b", "ns/a"]


def test_empty_listing_deletes_everything():
    objects = {o.key: o for o in [cached("ns/a", "1")]}
    assert summary(diff_relist(objects, [])) == [
        (ChangeType.DELETE, "ns/a", "1", None)]


def test_key_listed_twice_later_wins():
    listed = [cached("ns/a", "1"), cached("ns/b", "1"), cached("ns/a", "5")]
    changes = diff_relist({}, listed)
    assert [(c.new.key, c.new.resource_version) for c in changes] == [
        ("ns/b", "1"), ("ns/a", "5")]
