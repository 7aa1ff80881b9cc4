#!/usr/bin/env python3
"""Checks deploy/Dockerfile against the binaries Bazel built here.

No container engine runs where the tests run, so the image is never built.
Instead: every shared library that `ldd` reports for bazel-bin/server/
informerd (and bazel-bin/client/cpp/informerctl, when built) is mapped to
its Debian package with `dpkg -S`, and that package must be in the runtime
stage's apt-get install list. Building and running the image on the same
Debian release then finds every library.

Usage: dockerfile_libs_test.py [-v] [TestCase.test_name ...]
Run from anywhere; paths are relative to the repository root.
"""

import functools
import os
import pathlib
import re
import subprocess
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
DEPS_TXT = ROOT / "hack" / "deps.txt"
INFORMERD = ROOT / "bazel-bin" / "server" / "informerd"
INFORMERCTL = ROOT / "bazel-bin" / "client" / "cpp" / "informerctl"


def dockerfile_stages(text):
    """Maps each stage name (FROM ... AS name) to its instructions, with
    continuation lines joined and comments dropped."""
    stages = {}
    current = None
    instruction = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not instruction and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            instruction += stripped[:-1] + " "
            continue
        instruction += stripped
        match = re.match(r"FROM\s+\S+(?:\s+AS\s+(\S+))?", instruction, re.IGNORECASE)
        if match:
            current = match.group(1) or f"stage{len(stages)}"
            stages[current] = []
        elif current is not None:
            stages[current].append(instruction)
        instruction = ""
    return stages


def installed_packages(instructions):
    """The package names given to `apt-get install` in RUN instructions."""
    packages = []
    for instruction in instructions:
        for command in re.split(r"&&|;", instruction):
            words = command.split()
            if "apt-get" not in words or "install" not in words:
                continue
            after = words[words.index("install") + 1:]
            packages += [w for w in after if not w.startswith("-")]
    return packages


def shared_libraries(binary):
    """Paths of the shared libraries the dynamic loader resolves for binary,
    the loader itself included."""
    output = subprocess.run(["ldd", str(binary)], check=True, capture_output=True,
                            text=True).stdout
    paths = []
    for line in output.splitlines():
        line = line.strip()
        if "=>" in line:
            target = line.split("=>", 1)[1].split("(")[0].strip()
            if target == "not found" or not target:
                raise AssertionError(f"{binary}: ldd cannot resolve {line}")
            paths.append(target)
        elif line.startswith("/"):
            paths.append(line.split()[0])
    return paths


@functools.lru_cache(maxsize=None)
def owning_package(path):
    """The Debian package that ships path. On a merged-/usr system a file is
    registered under /lib or /usr/lib, whichever its package used, so both
    spellings of the path and of its symlink target are tried."""
    candidates = []
    for p in (os.path.realpath(path), path):
        candidates.append(p)
        candidates.append(p[len("/usr"):] if p.startswith("/usr/") else "/usr" + p)
    for candidate in candidates:
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            owners = result.stdout.splitlines()[0].rsplit(": ", 1)[0]
            return tuple(owner.split(":")[0] for owner in owners.split(", "))
    raise AssertionError(f"no Debian package ships {path} (tried {candidates})")


class DockerfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stages = dockerfile_stages(DOCKERFILE.read_text())
        cls.runtime_packages = installed_packages(cls.stages.get("runtime", []))
        cls.build_packages = (installed_packages(cls.stages.get("build", [])) +
                              installed_packages(cls.stages.get("haproxy", [])))

    def assert_runtime_covers(self, binary):
        missing = {}
        for library in shared_libraries(binary):
            owners = owning_package(library)
            # A library shipped by a -dev package is satisfied by the
            # package's runtime name.
            acceptable = set(owners) | {o[:-len("-dev")] for o in owners if o.endswith("-dev")}
            if not acceptable & set(self.runtime_packages):
                missing[library] = list(owners)
        self.assertEqual(missing, {},
                         f"{DOCKERFILE}: the runtime stage installs none of these "
                         f"libraries' packages (library: packages)")

    def test_stages_are_named_build_haproxy_and_runtime(self):
        self.assertEqual(list(self.stages), ["build", "haproxy", "runtime"])
        self.assertTrue(self.runtime_packages, "runtime stage installs no packages")

    def test_runtime_takes_haproxy_3_from_its_stage(self):
        # Debian 12's haproxy (2.6) would reject the chart's glitch limits.
        self.assertNotIn("haproxy", self.runtime_packages)
        self.assertIn("COPY --from=haproxy /opt/haproxy /opt/haproxy", self.stages["runtime"])
        self.assertTrue(any("hack/haproxy.sh /opt/haproxy" in i for i in self.stages["haproxy"]))

    def test_runtime_covers_informerd_libraries(self):
        self.assertTrue(INFORMERD.exists(), f"{INFORMERD} missing: bazel build //server:informerd")
        self.assert_runtime_covers(INFORMERD)

    def test_runtime_covers_informerctl_libraries(self):
        if not INFORMERCTL.exists():
            self.skipTest(f"{INFORMERCTL} not built")
        self.assert_runtime_covers(INFORMERCTL)

    def test_runtime_installs_no_dev_packages(self):
        dev = [p for p in self.runtime_packages if p.endswith("-dev")]
        self.assertEqual(dev, [], "the runtime image needs no headers or build tools")

    def test_build_packages_come_from_deps_txt(self):
        deps = set(re.sub(r"#.*", "", DEPS_TXT.read_text()).split())
        unknown = [p for p in self.build_packages if p not in deps]
        self.assertEqual(unknown, [], f"build stage installs packages {DEPS_TXT} does not list")

    def test_build_builds_both_binaries(self):
        runs = " ".join(self.stages.get("build", []))
        for target in ("//server:informerd", "//client/cpp:informerctl"):
            self.assertIn(target, runs)

    def test_runtime_runs_as_uid_65532(self):
        # The chart's securityContext sets runAsUser 65532 to match.
        users = [i.split(None, 1)[1] for i in self.stages["runtime"] if i.upper().startswith("USER ")]
        self.assertEqual(users[-1:], ["65532:65532"])


if __name__ == "__main__":
    unittest.main()
