package io.informerd.client.e2e;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An informerd child process on fixed local ports, so a restart comes back
 * at the same address. Its log goes to a file for post-mortems. Shared with
 * the adapter module's end-to-end test through this module's test jar.
 */
public final class InformerdProcess implements AutoCloseable {
  private final E2eEnvironment env;
  private final int grpcPort;
  private final int httpPort;
  private final File log;
  private final List<String> extraArgs;
  private final Path kubeconfig;
  private final HttpClient http = HttpClient.newHttpClient();
  private Process process;

  public InformerdProcess(E2eEnvironment env, File log) throws IOException {
    this(env, log, env.kubeconfig, List.of());
  }

  /** With further command-line arguments, e.g. {@code --config=FILE}. */
  public InformerdProcess(E2eEnvironment env, File log, List<String> extraArgs)
      throws IOException {
    this(env, log, env.kubeconfig, extraArgs);
  }

  /** With another kubeconfig, e.g. one whose server is behind a fault proxy. */
  public InformerdProcess(E2eEnvironment env, File log, Path kubeconfig) throws IOException {
    this(env, log, kubeconfig, List.of());
  }

  /** With another kubeconfig and further command-line arguments. */
  public InformerdProcess(E2eEnvironment env, File log, Path kubeconfig, List<String> extraArgs)
      throws IOException {
    this.kubeconfig = kubeconfig;
    this.env = env;
    this.extraArgs = List.copyOf(extraArgs);
    this.grpcPort = freePort();
    this.httpPort = freePort();
    this.log = log;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  public String grpcAddress() {
    return "127.0.0.1:" + grpcPort;
  }

  /** Starts informerd and waits until /readyz answers ok (at most 60s). */
  public void start() throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(List.of(
            env.informerdBinary.toString(),
            "--kubeconfig=" + kubeconfig,
            "--resources=configmaps",
            "--grpc_address=" + grpcAddress(),
            "--http_address=127.0.0.1:" + httpPort));
    command.addAll(extraArgs);
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
            .start();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz")).build();
    while (true) {
      if (!process.isAlive()) {
        throw new IOException("informerd exited with " + process.exitValue() + "; see " + log);
      }
      try {
        HttpResponse<String> response = http.send(readyz, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // Keep waiting: the HTTP listener is not up yet.
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IOException("informerd not ready within 60s; see " + log);
      }
      // An external process offers no readiness signal but /readyz.
      process.waitFor(100, TimeUnit.MILLISECONDS);
    }
  }

  /** Stops informerd with SIGTERM and waits for it. */
  public void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    process = null;
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
