package io.informerd.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.informerd.v1.GetRequest;
import io.informerd.v1.ListResourcesRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ConnectionTest {
  @Rule public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void tokenFileIsReadOnEveryCall() throws Exception {
    Path tokenFile = temp.newFile("token").toPath();
    Files.write(tokenFile, "first\n".getBytes(StandardCharsets.UTF_8));
    try (FakeCacheServer server = new FakeCacheServer()) {
      Connection connection =
          Connection.builder()
              .target(server.address())
              .bearerTokenFile(tokenFile)
              .allowTokenWithoutTls(true)
              .build();
      connection.blockingStub().listResources(ListResourcesRequest.getDefaultInstance());
      Files.write(tokenFile, "second".getBytes(StandardCharsets.UTF_8));
      connection.blockingStub().listResources(ListResourcesRequest.getDefaultInstance());
      connection.close();
      assertEquals("Bearer first", server.authorizations.poll(5, TimeUnit.SECONDS));
      assertEquals("Bearer second", server.authorizations.poll(5, TimeUnit.SECONDS));
    }
  }

  @Test
  public void staticTokenIsSent() throws Exception {
    try (FakeCacheServer server = new FakeCacheServer()) {
      Connection connection =
          Connection.builder()
              .target(server.address())
              .bearerToken("s3cret")
              .allowTokenWithoutTls(true)
              .build();
      connection.blockingStub().listResources(ListResourcesRequest.getDefaultInstance());
      connection.close();
      assertEquals("Bearer s3cret", server.authorizations.poll(5, TimeUnit.SECONDS));
    }
  }

  @Test
  public void unreadableTokenFileFailsTheCallUnauthenticated() throws Exception {
    Path missing = temp.getRoot().toPath().resolve("missing-token");
    try (FakeCacheServer server = new FakeCacheServer()) {
      Connection connection =
          Connection.builder()
              .target(server.address())
              .bearerTokenFile(missing)
              .allowTokenWithoutTls(true)
              .build();
      StatusRuntimeException e =
          assertThrows(
              StatusRuntimeException.class,
              () -> connection.blockingStub().listResources(ListResourcesRequest.getDefaultInstance()));
      connection.close();
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      assertTrue(e.getMessage(), e.getMessage().contains("missing-token"));
    }
  }

  /**
   * As in the Go client, a token goes over plaintext only when asked; loopback
   * is no exception (whether that is safe depends on the path, not the
   * address).
   */
  @Test
  public void tokenWithoutTlsIsRefusedUnlessAllowed() {
    String message = "bearer token: a token needs TLS (or allowTokenWithoutTls(true))";
    for (String target : List.of("informerd.example:50051", "127.0.0.1:50051", "localhost:50051")) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () -> Connection.builder().target(target).bearerToken("s3cret").build());
      assertEquals(message, e.getMessage());
      e = assertThrows(
          IllegalStateException.class,
          () -> Connection.builder()
              .target(target)
              .bearerTokenFile(Path.of("/nonexistent/token"))
              .build());
      assertEquals(message, e.getMessage());
    }
    IllegalStateException addresses =
        assertThrows(
            IllegalStateException.class,
            () -> Connection.builder()
                .addresses(List.of("127.0.0.1:1", "127.0.0.1:2"))
                .bearerToken("s3cret")
                .build());
    assertEquals(message, addresses.getMessage());
    Connection.builder()
        .target("127.0.0.1:50051")
        .bearerToken("s3cret")
        .allowTokenWithoutTls(true)
        .build()
        .close();
    Connection.builder()
        .target("informerd.example:50051")
        .bearerToken("s3cret")
        .tls(TlsOptions.systemRoots())
        .build()
        .close();
    Connection.builder().target("127.0.0.1:50051").build().close();
  }

  @Test
  public void unaryCallsGetTheDefaultDeadline() throws Exception {
    try (FakeCacheServer server = new FakeCacheServer()) {
      Connection connection =
          Connection.builder()
              .target(server.address())
              .defaultDeadline(Duration.ofMillis(200))
              .build();
      StatusRuntimeException e =
          assertThrows(
              StatusRuntimeException.class,
              () -> connection.blockingStub().get(GetRequest.getDefaultInstance()));
      connection.close();
      assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
    }
  }

  @Test
  public void addressesAreBalancedRoundRobin() throws Exception {
    try (FakeCacheServer first = new FakeCacheServer();
        FakeCacheServer second = new FakeCacheServer()) {
      Connection connection =
          Connection.builder().addresses(List.of(first.address(), second.address())).build();
      // The second subchannel may still be connecting during the first few
      // calls; round robin must reach it well within 1000 calls, where
      // pick_first never would.
      for (int i = 0;
          i < 1000 && (first.authorizations.isEmpty() || second.authorizations.isEmpty());
          i++) {
        connection.blockingStub().listResources(ListResourcesRequest.getDefaultInstance());
      }
      connection.close();
      assertTrue("first server got calls", first.authorizations.size() > 0);
      assertTrue("second server got calls", second.authorizations.size() > 0);
    }
  }

  @Test
  public void builderRejectsBadOptionsNamingThem() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Connection.builder().build());
    assertTrue(e.getMessage(), e.getMessage().startsWith("target:"));
    e = assertThrows(
        IllegalArgumentException.class,
        () -> Connection.builder().addresses(List.of("no-port")));
    assertTrue(e.getMessage(), e.getMessage().contains("expected host:port"));
    e = assertThrows(
        IllegalArgumentException.class,
        () -> Connection.builder()
            .target("localhost:1")
            .tls(TlsOptions.withCa(Path.of("/nonexistent/ca.crt")))
            .build());
    assertTrue(e.getMessage(), e.getMessage().startsWith("TLS CA file: cannot read"));
    e = assertThrows(
        IllegalArgumentException.class,
        () -> Connection.builder().defaultDeadline(Duration.ZERO));
    assertTrue(e.getMessage(), e.getMessage().startsWith("default deadline"));
  }
}
