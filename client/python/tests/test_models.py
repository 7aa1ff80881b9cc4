"""Cached objects decoded as the kubernetes package's models."""

import datetime

import pytest
from kubernetes.client import V1ConfigMap, V1Pod

from informerd import DecodeError, decode_model, pb
from informerd.objects import CachedObject

POD = (b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",'
       b'"namespace":"ns","resourceVersion":"7","uid":"u-1",'
       b'"creationTimestamp":"2026-03-04T05:06:07Z","labels":{"app":"web"},'
       b'"fieldAddedLater":{"x":1}},'
       b'"spec":{"containers":[{"name":"c","image":"busybox:1",'
       b'"resources":{"limits":{"memory":"64Mi"}}}]},'
       b'"status":{"phase":"Pending"}}')


def cached(json):
    return CachedObject.from_proto(pb.Object(
        namespace="ns", name="p", resource_version="7", json=json))


def test_object_decodes_as_the_model_class_or_its_name():
    for model in (V1Pod, "V1Pod"):
        pod = cached(POD).as_model(model)
        assert isinstance(pod, V1Pod)
        assert (pod.api_version, pod.kind) == ("v1", "Pod")
        assert (pod.metadata.namespace, pod.metadata.name,
                pod.metadata.resource_version, pod.metadata.uid) == \
            ("ns", "p", "7", "u-1")
        assert pod.metadata.labels == {"app": "web"}
        assert pod.metadata.creation_timestamp == datetime.datetime(
            2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
        assert pod.spec.containers[0].image == "busybox:1"
        assert pod.spec.containers[0].resources.limits == {"memory": "64Mi"}
        assert pod.status.phase == "Pending"


def test_bytes_decode_and_each_call_returns_a_fresh_model():
    first = decode_model(POD, V1Pod)
    first.metadata.labels["app"] = "changed"
    assert decode_model(POD, V1Pod).metadata.labels == {"app": "web"}


def test_missing_api_version_and_kind_stay_unset():
    # Objects an older informerd ingested from a LIST lack them.
    config_map = decode_model(b'{"metadata":{"name":"c"},"data":{"k":"v"}}',
                              V1ConfigMap)
    assert (config_map.api_version, config_map.kind) == (None, None)
    assert config_map.data == {"k": "v"}


@pytest.mark.parametrize("json, model, message", [
    (b'{"metadata":', V1Pod, "ns/p: cannot decode as V1Pod"),
    (b'{"spec":5}', V1Pod, "ns/p: cannot decode as V1Pod"),
    (b'null', V1Pod, "ns/p: cannot decode as V1Pod: not a JSON object"),
    (b'\xff', V1Pod, "ns/p: invalid UTF-8"),
    (b'{}', "V1NoSuchModel", "ns/p: cannot decode as V1NoSuchModel"),
])
def test_errors_name_the_object_and_the_model(json, model, message):
    with pytest.raises(DecodeError, match=message):
        cached(json).as_model(model)
