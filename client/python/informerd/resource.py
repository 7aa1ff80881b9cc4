"""Resource names as users type them, as kubectl accepts them:

  "configmaps"            resource (core group, or whichever group the
                          server serves it in)
  "deployments.apps"      resource.group
  "deployments.v1.apps"   resource.version.group
  "apps/v1/deployments"   group/version/resource; "v1/pods" for the core
                          group
"""

from __future__ import annotations

import re

from informerd.proto import pb

_VERSION_RE = re.compile(r"v[0-9]+((alpha|beta)[0-9]+)?\Z")
_RESOURCE_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_GROUP_RE = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?\Z")


def parse_resource(text: str) -> "pb.ResourceName":
    """The ResourceName ``text`` denotes (lower-cased). ValueError names
    ``text`` when it has none of the forms above."""
    lowered = text.strip().lower()
    group = version = ""
    if "/" in lowered:
        parts = lowered.split("/")
        if len(parts) == 2:
            version, resource = parts
        elif len(parts) == 3:
            group, version, resource = parts
        else:
            raise ValueError("resource: %r has too many '/'" % text)
        if _VERSION_RE.match(version) is None:
            raise ValueError("resource: %r: %r is not an API version"
                             % (text, version))
    else:
        resource, _, rest = lowered.partition(".")
        first, _, after_first = rest.partition(".")
        if _VERSION_RE.match(first) and after_first:
            version, group = first, after_first
        else:
            group = rest
    if _RESOURCE_RE.match(resource) is None:
        raise ValueError("resource: %r: %r is not a resource name"
                         % (text, resource))
    if _GROUP_RE.match(group) is None:
        raise ValueError("resource: %r: %r is not an API group"
                         % (text, group))
    return pb.ResourceName(group=group, version=version, resource=resource)
