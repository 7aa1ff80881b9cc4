from dataclasses import dataclass

import pytest

from informerd import DecodeError, decode, decode_as
from objects_for_tests import cached


@dataclass
class ConfigMap:
    name: str
    data: dict

    @classmethod
    def from_dict(cls, d):
        return cls(name=d["metadata"]["name"], data=d.get("data", {}))


def test_decode_into_dict():
    assert decode(cached("ns/a", "1")) == {"metadata": {"name": "a"}}
    assert decode(b'{"x": 1}') == {"x": 1}


def test_decode_into_user_type():
    assert decode_as(cached("ns/a", "1"), ConfigMap.from_dict) == \
        ConfigMap(name="a", data={})


class Wrong:
    def __init__(self, data):
        raise KeyError("spec")


def test_type_errors_name_the_object_and_type():
    with pytest.raises(DecodeError,
                       match="ns/a: cannot decode as Wrong: 'spec'"):
        decode_as(cached("ns/a", "1"), Wrong)


@pytest.mark.parametrize("data, message", [
    (b"{", "invalid JSON"), (b"[1]", "JSON is a list"), (b"\xff", "invalid")])
def test_bad_json_is_a_decode_error(data, message):
    with pytest.raises(DecodeError, match=message):
        decode(data)
