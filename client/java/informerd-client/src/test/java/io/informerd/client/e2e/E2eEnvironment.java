package io.informerd.client.e2e;

import static org.junit.Assert.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Assume;

/**
 * The control plane and informerd binary the end-to-end test runs against,
 * from the environment of {@code hack/control-plane.sh env}.
 *
 * <p>With INFORMERD_E2E unset the test is skipped; with INFORMERD_E2E=1 a
 * missing variable or binary fails it, so a broken harness cannot pass
 * silently.
 */
public final class E2eEnvironment {
  public final String apiserverUrl;
  public final Path adminTokenFile;
  public final Path caFile;
  public final Path kubeconfig;
  public final Path informerdBinary;

  private E2eEnvironment(
      String apiserverUrl, Path adminTokenFile, Path caFile, Path kubeconfig, Path informerdBinary) {
    this.apiserverUrl = apiserverUrl;
    this.adminTokenFile = adminTokenFile;
    this.caFile = caFile;
    this.kubeconfig = kubeconfig;
    this.informerdBinary = informerdBinary;
  }

  public static E2eEnvironment require() {
    Assume.assumeTrue(
        "INFORMERD_E2E is not set; set INFORMERD_E2E=1 to run end-to-end tests",
        System.getenv("INFORMERD_E2E") != null && !System.getenv("INFORMERD_E2E").isEmpty());
    return new E2eEnvironment(
        requireEnv("INFORMERD_APISERVER_URL"),
        requireFile("INFORMERD_ADMIN_TOKEN_FILE", System.getenv("INFORMERD_ADMIN_TOKEN_FILE")),
        requireFile("INFORMERD_CA_FILE", System.getenv("INFORMERD_CA_FILE")),
        requireFile("KUBECONFIG", System.getenv("KUBECONFIG")),
        requireFile("informerd binary (-Dinformerd.bin or INFORMERD_BIN)", informerdBinaryPath()));
  }

  private static String informerdBinaryPath() {
    String fromProperty = System.getProperty("informerd.bin");
    if (fromProperty != null && !fromProperty.isEmpty()) {
      return fromProperty;
    }
    String fromEnv = System.getenv("INFORMERD_BIN");
    if (fromEnv != null && !fromEnv.isEmpty()) {
      return fromEnv;
    }
    String root = System.getenv("INFORMERD_REPO_ROOT");
    return (root == null ? "../.." : root) + "/bazel-bin/server/informerd";
  }

  private static String requireEnv(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) {
      fail(name + " is not set (INFORMERD_E2E=1 requires `eval \"$(hack/control-plane.sh env)\"`)");
    }
    return value;
  }

  private static Path requireFile(String what, String path) {
    if (path == null || path.isEmpty()) {
      fail(what + " is not set (INFORMERD_E2E=1 requires `eval \"$(hack/control-plane.sh env)\"`)");
    }
    Path file = Path.of(path);
    if (!Files.isReadable(file)) {
      fail(what + ": cannot read " + file);
    }
    return file;
  }
}
