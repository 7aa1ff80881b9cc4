import pytest

from informerd import parse_resource


@pytest.mark.parametrize("text, group, version, resource", [
    ("configmaps", "", "", "configmaps"),
    ("ConfigMaps", "", "", "configmaps"),
    ("deployments.apps", "apps", "", "deployments"),
    ("deployments.v1.apps", "apps", "v1", "deployments"),
    ("widgets.v1beta2.example.com", "example.com", "v1beta2", "widgets"),
    ("widgets.example.com", "example.com", "", "widgets"),
    ("apps/v1/deployments", "apps", "v1", "deployments"),
    ("v1/pods", "", "v1", "pods"),
])
def test_forms(text, group, version, resource):
    name = parse_resource(text)
    assert (name.group, name.version, name.resource) == \
        (group, version, resource)


@pytest.mark.parametrize("text", [
    "", "a/b/c/d", "apps/x1/deployments", "config maps", "pods.-bad",
    "apps/v1/"])
def test_errors_name_the_field(text):
    with pytest.raises(ValueError, match="resource: "):
        parse_resource(text)
