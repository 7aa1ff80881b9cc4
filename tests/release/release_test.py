"""The release artifacts of hack/release.sh, each installed as a user
installs it into an empty project in a temporary directory (no checkout on
any path, no `replace`), whose small program lists configmaps through a
real informerd on the control plane of the environment (run.sh) and must
see an object the test created. One JUnit case each:
  - hack/release.sh builds every artifact of VERSION;
  - version skew: in a copy of the version-carrying files, each part set to
    another version makes `hack/release.sh --check` fail, naming the file
    and both versions (the unchanged copy passes);
  - the chart package: its Chart.yaml says VERSION, and it renders the
    image informerd:VERSION;
  - Go: `go get MODULE@vVERSION` and `go mod tidy` with GOPROXY=
    file://DIST/go first (then the shared module cache and the machine's
    proxy, for third-party modules only) and GONOSUMDB for the module (it
    is in no checksum database); the module zip Go fetched must be the
    release's, byte for byte;
  - Maven: a pom depending on io.informerd:informerd-client:VERSION with a
    file:// repository; the local repository is a fresh one chained to
    ~/.m2 minus io/informerd (where a checkout's `mvnw install` puts the
    same version), and the jar on the classpath must be the release's;
  - pip: `pip install --no-index --no-deps --find-links DIST/python
    informerd==VERSION`, then its dependencies from PyPI; the installed
    distribution must say VERSION.
"""

from __future__ import annotations

import argparse
import filecmp
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from typing import Dict, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "e2e"))
import harness  # noqa: E402
from harness import ApiServer, HarnessError, Informerd, TestCase  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = harness.ROOT
CACHE = os.environ.get("INFORMERD_CACHE") or os.path.expanduser("~/.cache/informerd")
GO_MODULE = "github.com/informerd/informerd/client/go"
PROBE = "release-probe"
# The files hack/release/versions.py reads, with the script and what it
# sources: a copy of them is a repository as far as `release.sh --check` goes.
VERSION_FILES = ["VERSION", "hack/release.sh", "hack/lib.sh", "hack/release/versions.py",
                 "charts/informerd/Chart.yaml", "client/java/pom.xml",
                 "client/python/pyproject.toml"]


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tests/release/run.sh")
    parser.add_argument("--junit", help="write a JUnit XML report here")
    parser.add_argument("--workdir", help="keep the run's files here (default: a new temp dir)")
    parser.add_argument("--helm", required=True, help="the helm binary")
    parser.add_argument("--go", required=True, help="the go binary")
    return parser.parse_args(argv)


def run(case: TestCase, argv: List[str], cwd: str, env: Optional[Dict[str, str]] = None,
        timeout: float = 900, check: bool = True) -> subprocess.CompletedProcess:
    """Runs argv, logs the command, its time and (on failure) its output."""
    start = time.monotonic()
    result = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    case.log("$ %s  (%.1fs, exit %d)" % (" ".join(argv), time.monotonic() - start,
                                         result.returncode))
    if check and result.returncode != 0:
        raise HarnessError("%s exited %d:\n%s\n%s" % (argv[0], result.returncode,
                                                     out[-3000:], err[-3000:]))
    result.out, result.err = out, err  # type: ignore[attr-defined]
    return result


def expect_probe(case: TestCase, output: str, namespace: str) -> None:
    want = "%s/%s" % (namespace, PROBE)
    lines = output.split()
    case.log("program printed: %s" % lines)
    if want not in lines:
        raise HarnessError("the program did not list %s through informerd; it printed %r"
                           % (want, output))


def clean_env(**extra: str) -> Dict[str, str]:
    """The environment without anything that points into the checkout."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHONPATH", "GOFLAGS", "INFORMERD_REPO", "VIRTUAL_ENV"))}
    env.update(extra)
    return env


def writable_tree(path: str) -> None:
    """Go's module cache is read-only; its owner may still delete it."""
    for dirpath, _, _ in os.walk(path):
        os.chmod(dirpath, 0o755)


class Run:
    def __init__(self, args: argparse.Namespace, workdir: str):
        self.args = args
        self.workdir = workdir
        self.dist = os.path.join(workdir, "dist")
        with open(os.path.join(ROOT, "VERSION")) as f:
            self.version = f.read().split()[0]
        self.api = ApiServer()
        self.namespace = "release-%d-%d" % (int(time.time()), os.getpid())
        self.server = Informerd(os.path.join(workdir, "informerd.log"))
        self.state = os.path.join(CACHE, "release-test")
        self.probe_created = False

    def close(self) -> None:
        self.server.stop()

    def project(self, lang: str) -> str:
        """A new, empty directory outside the checkout with the program."""
        path = os.path.join(self.workdir, "project-" + lang)
        shutil.copytree(os.path.join(HERE, "projects", lang), path)
        return path

    def ensure_server(self) -> None:
        """The namespace with the probe configmap, and informerd serving it."""
        if not self.probe_created:
            self.api.create_namespace(self.namespace)
            self.api.create_configmap(self.namespace, PROBE, {"app": "release"},
                                      {"made-by": "tests/release"})
            self.probe_created = True
        if not self.server.alive():
            self.server.start()

    # --- cases ---------------------------------------------------------------

    def build(self, case: TestCase) -> None:
        result = run(case, [os.path.join(ROOT, "hack", "release.sh"), "--out", self.dist], ROOT)
        for line in result.err.splitlines():
            case.log(line)
        with open(os.path.join(self.dist, "SHA256SUMS")) as f:
            files = [line.split()[1] for line in f]
        case.log("%d files in %s, e.g. %s" % (len(files), self.dist,
                                              [f for f in files if f.endswith((".tgz", ".zip", ".whl"))]))

    def skew(self, case: TestCase) -> None:
        copy = os.path.join(self.workdir, "skew")

        def fresh_copy() -> None:
            shutil.rmtree(copy, ignore_errors=True)
            for rel in VERSION_FILES + [os.path.relpath(p, ROOT) for p in
                                        glob.glob(os.path.join(ROOT, "client/java/*/pom.xml"))]:
                os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
                shutil.copy2(os.path.join(ROOT, rel), os.path.join(copy, rel))

        def check() -> subprocess.CompletedProcess:
            return run(case, ["bash", os.path.join(copy, "hack", "release.sh"), "--check"],
                       copy, check=False, timeout=60)

        fresh_copy()
        result = check()
        if result.returncode != 0:
            raise HarnessError("release.sh --check fails on an unchanged copy:\n" + result.err)
        other = "9.9.9"
        v = re.escape(self.version)
        mutations = [
            ("client/java/pom.xml", r"<version>%s</version>" % v,
             "<version>%s</version>" % other, "project version"),
            ("client/java/informerd-client/pom.xml", r"<version>%s</version>" % v,
             "<version>%s</version>" % other, "parent version"),
            ("client/java/informerd-kubernetes-client/pom.xml", r"<version>%s</version>" % v,
             "<version>%s</version>" % other, "parent version"),
            ("charts/informerd/Chart.yaml", r"(?m)^version: .*$", "version: " + other, "version"),
            ("charts/informerd/Chart.yaml", r"(?m)^appVersion: .*$",
             'appVersion: "%s"' % other, "appVersion"),
            ("client/python/pyproject.toml", r'(?m)^version = ".*"$',
             'version = "%s"' % other, "[project] version"),
        ]
        for rel, pattern, replacement, what in mutations:
            fresh_copy()
            path = os.path.join(copy, rel)
            with open(path) as f:
                text = f.read()
            changed = re.sub(pattern, replacement, text, count=1)
            if changed == text:
                raise HarnessError("%s: %r not found; the test no longer matches the file"
                                   % (rel, pattern))
            with open(path, "w") as f:
                f.write(changed)
            result = check()
            want = "version skew: %s has %s %s, VERSION has %s" % (rel, what, other,
                                                                  self.version)
            if result.returncode == 0 or want not in result.err:
                raise HarnessError("%s set to %s: release.sh --check exited %d without %r:\n%s"
                                   % (rel, other, result.returncode, want, result.err))
            case.log("%s %s %s: refused with %r" % (rel, what, other, want))
        # VERSION moved alone: every part is named.
        fresh_copy()
        with open(os.path.join(copy, "VERSION"), "w") as f:
            f.write(other + "\n")
        result = check()
        named = result.err.count("version skew:")
        if result.returncode == 0 or named != 7:
            raise HarnessError("VERSION set to %s alone: expected a skew line for each of the "
                               "7 version fields, got exit %d:\n%s"
                               % (other, result.returncode, result.err))
        case.log("VERSION %s alone: %d lines, every part named" % (other, named))

    def chart(self, case: TestCase) -> None:
        tgz = os.path.join(self.dist, "helm", "informerd-%s.tgz" % self.version)
        with tarfile.open(tgz) as tar:
            chart_yaml = tar.extractfile("informerd/Chart.yaml").read().decode()
        for key in ("version", "appVersion"):
            m = re.search(r'(?m)^%s:\s*"?([^"\s]+)"?' % key, chart_yaml)
            if not m or m.group(1) != self.version:
                raise HarnessError("%s in the packaged Chart.yaml is %s, VERSION is %s"
                                   % (key, m.group(1) if m else "missing", self.version))
        result = run(case, [self.args.helm, "template", "r", tgz], self.workdir)
        image = "informerd:%s" % self.version
        if not re.search(r"(?m)^\s*image: \"?\S*%s\"?$" % re.escape(image), result.out):
            raise HarnessError("the packaged chart does not render image %s" % image)
        case.log("packaged chart %s renders image %s" % (os.path.basename(tgz), image))

    def go(self, case: TestCase) -> None:
        self.ensure_server()
        project = self.project("go")
        shared = run(case, [self.args.go, "env", "GOMODCACHE"], project).out.strip()
        machine_proxy = run(case, [self.args.go, "env", "GOPROXY"], project).out.strip()
        modcache = os.path.join(self.state, "gomodcache")
        # Third-party modules stay cached between runs; the module under test
        # is fetched anew from the release every time.
        ours = os.path.join(modcache, "github.com", "informerd")
        ours_download = os.path.join(modcache, "cache", "download", "github.com", "informerd")
        for path in (ours, ours_download):
            if os.path.exists(path):
                writable_tree(path)
                shutil.rmtree(path)
        env = clean_env(
            GOTOOLCHAIN="local", GOMODCACHE=modcache,
            GOPROXY="file://%s/go,file://%s/cache/download,%s" % (self.dist, shared,
                                                                    machine_proxy),
            GONOSUMDB="github.com/informerd/informerd")
        run(case, [self.args.go, "mod", "init", "example.com/releasetest"], project, env)
        run(case, [self.args.go, "get", "%s@v%s" % (GO_MODULE, self.version)], project, env)
        listed = run(case, [self.args.go, "list", "-m", GO_MODULE], project, env).out.strip()
        if listed != "%s v%s" % (GO_MODULE, self.version):
            raise HarnessError("go list -m says %r, want %s v%s" % (listed, GO_MODULE,
                                                                   self.version))
        fetched = os.path.join(ours_download, "informerd", "client", "go", "@v",
                               "v%s.zip" % self.version)
        released = os.path.join(self.dist, "go", GO_MODULE, "@v", "v%s.zip" % self.version)
        if not os.path.exists(fetched) or not filecmp.cmp(fetched, released, shallow=False):
            raise HarnessError("the module zip Go used (%s) is not the release's %s"
                               % (fetched, released))
        run(case, [self.args.go, "mod", "tidy"], project, env)
        run(case, [self.args.go, "build", "-o", "releasetest", "."], project, env)
        result = run(case, ["./releasetest", self.server.address, self.namespace], project, env,
                     timeout=60)
        expect_probe(case, result.out, self.namespace)

    def maven(self, case: TestCase) -> None:
        self.ensure_server()
        project = self.project("java")
        pom = os.path.join(project, "pom.xml")
        with open(pom) as f:
            text = f.read()
        with open(pom, "w") as f:
            f.write(text.replace("@VERSION@", self.version)
                    .replace("@REPOSITORY@", "file://%s/maven" % self.dist))
        # The local repository: a fresh one for io/informerd (emptied every
        # run), chained to the user's ~/.m2 for everything else, seen through
        # links that leave io/informerd out, where `mvnw install` from a
        # checkout puts artifacts of the same version.
        local = os.path.join(self.state, "m2")
        shutil.rmtree(os.path.join(local, "io", "informerd"), ignore_errors=True)
        os.makedirs(local, exist_ok=True)
        user_repo = os.path.expanduser("~/.m2/repository")
        tail = os.path.join(self.workdir, "m2-tail")
        os.makedirs(os.path.join(tail, "io"))
        if os.path.isdir(user_repo):
            for name in os.listdir(user_repo):
                if name != "io":
                    os.symlink(os.path.join(user_repo, name), os.path.join(tail, name))
            for name in os.listdir(os.path.join(user_repo, "io")) if os.path.isdir(
                    os.path.join(user_repo, "io")) else []:
                if name != "informerd":
                    os.symlink(os.path.join(user_repo, "io", name),
                               os.path.join(tail, "io", name))
        classpath_file = os.path.join(project, "classpath.txt")
        run(case, [os.path.join(ROOT, "client", "java", "mvnw"), "-B", "-q", "-f", pom,
                   "-Dmaven.repo.local=" + local, "-Dmaven.repo.local.tail=" + tail,
                   "dependency:build-classpath", "-Dmdep.outputFile=" + classpath_file],
            project, clean_env())
        with open(classpath_file) as f:
            classpath = f.read().strip()
        jar_name = "informerd-client-%s.jar" % self.version
        used = [p for p in classpath.split(":") if os.path.basename(p) == jar_name]
        released = os.path.join(self.dist, "maven", "io", "informerd", "informerd-client",
                                self.version, jar_name)
        if len(used) != 1 or not used[0].startswith(local + os.sep) or \
                not filecmp.cmp(used[0], released, shallow=False):
            raise HarnessError("the classpath's %s is %s, not the release's %s"
                               % (jar_name, used or "missing", released))
        run(case, ["javac", "-d", "classes", "-cp", classpath, "Main.java"], project)
        result = run(case, ["java", "-cp", "classes:" + classpath, "Main",
                            self.server.address, self.namespace], project, timeout=60)
        expect_probe(case, result.out, self.namespace)

    def pip(self, case: TestCase) -> None:
        self.ensure_server()
        project = self.project("python")
        venv = os.path.join(project, ".venv")
        # The python3 on PATH, as client/python/venv.sh uses.
        python = shutil.which("python3")
        if not python:
            raise HarnessError("python3 is not on PATH")
        run(case, [python, "-m", "venv", venv], project, clean_env())
        py = os.path.join(venv, "bin", "python")
        env = clean_env()
        requirement = "informerd==%s" % self.version
        run(case, [py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                   "--find-links", os.path.join(self.dist, "python"), requirement], project, env)
        run(case, [py, "-m", "pip", "install", "--quiet", requirement], project, env)
        installed = run(case, [py, "-c", "import importlib.metadata as m, informerd; "
                                         "print(m.version('informerd')); print(informerd.__file__)"],
                        project, env).out.split()
        if installed[0] != self.version or not installed[1].startswith(venv + os.sep):
            raise HarnessError("installed informerd is %s at %s, want %s in %s"
                               % (installed[0], installed[1], self.version, venv))
        result = run(case, [py, "main.py", self.server.address, self.namespace], project, env,
                     timeout=60)
        expect_probe(case, result.out, self.namespace)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    workdir, _ = harness.start_run("release", args.workdir, 0)
    r = Run(args, workdir)
    steps = [
        ("hack/release.sh builds every artifact of VERSION", r.build),
        ("version skew between the parts fails release.sh", r.skew),
        ("chart package carries VERSION", r.chart),
        ("Go module from GOPROXY=file:// into an empty module", r.go),
        ("Maven artifacts from a file:// repository into an empty project", r.maven),
        ("Python wheel from --find-links into an empty virtualenv", r.pip),
    ]
    cases = []
    try:
        for name, body in steps:
            case = TestCase(name)
            cases.append(case)
            if body not in (r.build, r.skew) and cases[0].failure:
                # Each of these installs what the first case built.
                case.failure = "not run: hack/release.sh failed (first case)"
                case.log("FAIL: " + case.failure)
                continue
            harness.run_case(case, body)
    finally:
        r.close()
    return harness.report("release", cases, args.junit)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
