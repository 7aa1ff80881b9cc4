import pytest

from informerd import NAMESPACE_INDEX, Lister, SelectorError, Store
from objects_for_tests import cached


def keys(objects):
    return [o.key for o in objects]


def test_upsert_returns_replaced_object():
    store = Store()
    assert store.upsert(cached("ns/a", "1")) is None
    old = store.upsert(cached("ns/a", "2"))
    assert old.resource_version == "1"
    assert store.get("ns", "a").resource_version == "2"
    assert len(store) == 1


def test_remove():
    store = Store()
    store.upsert(cached("ns/a", "1"))
    assert store.remove("ns/a").resource_version == "1"
    assert store.remove("ns/a") is None
    assert store.get("ns", "a") is None
    assert store.by_index(NAMESPACE_INDEX, "ns") == []
    assert store.index_values(NAMESPACE_INDEX) == []


def test_cluster_scoped_key_is_the_name():
    store = Store()
    store.upsert(cached("node1", "1"))
    assert store.get("", "node1").key == "node1"
    assert store.keys() == ["node1"]


def test_list_filters_by_selector_and_namespace_sorted():
    store = Store()
    store.upsert(cached("b/x", "1", {"app": "web"}))
    store.upsert(cached("a/y", "2", {"app": "web"}))
    store.upsert(cached("a/x", "3", {"app": "db"}))
    assert keys(store.list()) == ["a/x", "a/y", "b/x"]
    assert keys(store.list("app=web")) == ["a/y", "b/x"]
    assert keys(store.list("app!=web", namespace="a")) == ["a/x"]
    assert keys(store.list(namespace="c")) == []
    assert keys(store.list("app=")) == []
    with pytest.raises(SelectorError):
        store.list("=")


def test_namespace_index():
    store = Store()
    store.upsert(cached("a/x", "1"))
    store.upsert(cached("b/x", "1"))
    assert keys(store.by_index(NAMESPACE_INDEX, "a")) == ["a/x"]
    assert store.index_values(NAMESPACE_INDEX) == ["a", "b"]


def test_user_index_follows_updates():
    store = Store({"owner": lambda o: [o.labels[k] for k in o.labels
                                       if k == "owner"]})
    store.upsert(cached("ns/a", "1", {"owner": "alice"}))
    store.upsert(cached("ns/b", "1", {"owner": "alice"}))
    store.upsert(cached("ns/a", "2", {"owner": "bob"}))
    assert keys(store.by_index("owner", "alice")) == ["ns/b"]
    assert keys(store.by_index("owner", "bob")) == ["ns/a"]
    store.upsert(cached("ns/b", "2"))
    assert store.index_values("owner") == ["bob"]


def test_multi_valued_index():
    store = Store({"letters": lambda o: set(o.name)})
    store.upsert(cached("ns/ab", "1"))
    store.upsert(cached("ns/bc", "1"))
    assert keys(store.by_index("letters", "b")) == ["ns/ab", "ns/bc"]
    assert keys(store.by_index("letters", "c")) == ["ns/bc"]


def test_failing_index_leaves_object_out_of_that_index_only():
    def broken(obj):
        raise RuntimeError("bug")

    store = Store({"broken": broken})
    store.upsert(cached("ns/a", "1"))
    store.upsert(cached("ns/a", "2"))
    assert store.by_index("broken", "x") == []
    assert keys(store.by_index(NAMESPACE_INDEX, "ns")) == ["ns/a"]
    assert store.remove("ns/a") is not None


def test_unknown_index_is_an_error_naming_it():
    with pytest.raises(ValueError, match="index_name: unknown index 'nope'"):
        Store().by_index("nope", "x")


def test_namespace_index_cannot_be_redefined():
    with pytest.raises(ValueError, match="indexers"):
        Store({NAMESPACE_INDEX: lambda o: []})


def test_lister_reads_through():
    store = Store()
    lister = Lister(store)
    store.upsert(cached("ns/a", "1"))
    assert lister.get("ns", "a").resource_version == "1"
    assert lister.get_by_key("ns/a") is not None
    assert keys(lister.list()) == ["ns/a"]
    assert len(lister) == 1
    assert not hasattr(lister, "upsert")


def test_cached_object_labels_are_read_only():
    obj = cached("ns/a", "1", {"k": "v"})
    with pytest.raises(TypeError):
        obj.labels["k"] = "w"


def test_index_keys_like_client_go():
    store = Store({"app": lambda o: [o.labels.get("app", "")]})
    store.upsert(cached("ns/b", "1", {"app": "web"}))
    store.upsert(cached("ns/a", "1", {"app": "web"}))
    store.upsert(cached("ns/c", "1", {"app": "db"}))
    assert store.index_keys("app", "web") == ["ns/a", "ns/b"]
    assert keys(store.by_index("app", "web")) == ["ns/a", "ns/b"]
    assert store.index_keys("app", "none") == []
    assert Lister(store).index_keys("app", "db") == ["ns/c"]
    with pytest.raises(ValueError, match="unknown index 'nope'"):
        store.index_keys("nope", "x")


def test_add_indexers_indexes_what_is_stored():
    store = Store()
    store.upsert(cached("ns/a", "1", {"app": "web"}))
    store.add_indexers({"app": lambda o: [o.labels.get("app", "")]})
    assert store.index_keys("app", "web") == ["ns/a"]
    store.upsert(cached("ns/a", "2", {"app": "db"}))
    assert store.index_keys("app", "web") == []
    assert store.index_keys("app", "db") == ["ns/a"]
    with pytest.raises(ValueError, match="'app', 'namespace' already"):
        store.add_indexers({"app": lambda o: [], "namespace": lambda o: [],
                            "new": lambda o: []})
    assert "new" not in store.indexers()
