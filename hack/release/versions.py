"""Checks that every part of a release carries the repository's one version.

The version is the first line of VERSION at the repository root (X.Y.Z).
The files that carry it too, and must say the same:
  charts/informerd/Chart.yaml      version and appVersion
  client/java/pom.xml              the parent's version
  client/java/<module>/pom.xml     each module's parent version (and its own,
                                   if it sets one)
  client/python/pyproject.toml     [project] version
The Go module carries no version in its files: its version is the one
hack/release.sh gives the module zip (vX.Y.Z).

Prints the version on success; otherwise one line per file that differs,
naming the file, what it says and what VERSION says, and exits 1.

Usage: python3 hack/release/versions.py ROOT
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
import xml.etree.ElementTree as ET
from typing import List, Tuple

POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
VERSION_RE = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")


class VersionError(Exception):
    pass


def read_version(root: str) -> str:
    path = os.path.join(root, "VERSION")
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise VersionError("VERSION: cannot read %s: %s" % (path, e.strerror))
    version = lines[0].strip() if lines else ""
    if not VERSION_RE.match(version):
        # Pre-releases are left out: Maven, PEP 440 and semver spell them
        # differently, and one spelling must serve every part.
        raise VersionError("VERSION: %r is not a release version X.Y.Z" % version)
    return version


def chart_versions(root: str) -> List[Tuple[str, str, str]]:
    rel = "charts/informerd/Chart.yaml"
    found = {}
    with open(os.path.join(root, rel)) as f:
        for line in f:
            m = re.match(r'^(version|appVersion):\s*["\']?([^"\'\s#]*)["\']?\s*(#.*)?$', line)
            if m:
                found[m.group(1)] = m.group(2)
    return [(rel, key, found.get(key, "(missing)")) for key in ("version", "appVersion")]


def pom_versions(root: str) -> List[Tuple[str, str, str]]:
    rel = "client/java/pom.xml"
    parent = ET.parse(os.path.join(root, rel)).getroot()
    out = [(rel, "project version", parent.findtext("m:version", "(missing)", POM_NS).strip())]
    for module in parent.findall("m:modules/m:module", POM_NS):
        mrel = "client/java/%s/pom.xml" % module.text.strip()
        pom = ET.parse(os.path.join(root, mrel)).getroot()
        out.append((mrel, "parent version",
                    pom.findtext("m:parent/m:version", "(missing)", POM_NS).strip()))
        own = pom.findtext("m:version", None, POM_NS)
        if own is not None:
            out.append((mrel, "project version", own.strip()))
    return out


def pyproject_versions(root: str) -> List[Tuple[str, str, str]]:
    rel = "client/python/pyproject.toml"
    with open(os.path.join(root, rel), "rb") as f:
        project = tomllib.load(f).get("project", {})
    return [(rel, "[project] version", str(project.get("version", "(missing)")))]


def skew(root: str) -> Tuple[str, List[str]]:
    """VERSION and one message per part that differs from it."""
    version = read_version(root)
    errors = []
    for reader in (chart_versions, pom_versions, pyproject_versions):
        try:
            parts = reader(root)
        except (OSError, ET.ParseError, tomllib.TOMLDecodeError) as e:
            errors.append("%s: cannot read the version: %s" % (reader.__name__, e))
            continue
        for rel, what, found in parts:
            if found != version:
                errors.append("version skew: %s has %s %s, VERSION has %s"
                              % (rel, what, found, version))
    return version, errors


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print("usage: versions.py ROOT", file=sys.stderr)
        return 2
    try:
        version, errors = skew(argv[0])
    except VersionError as e:
        print(e, file=sys.stderr)
        return 1
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 1
    print(version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
