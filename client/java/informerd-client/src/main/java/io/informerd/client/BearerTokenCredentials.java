package io.informerd.client;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;

/**
 * Sends {@code authorization: Bearer <token>} with every call.
 *
 * <p>The file form re-reads the file on every call, so a token rotated on
 * disk (as Kubernetes does for projected service account tokens) is picked up
 * without reconnecting; surrounding whitespace is ignored. A file that cannot
 * be read, or is empty, fails the call with UNAUTHENTICATED naming the file.
 * Thread-safe and immutable.
 */
public final class BearerTokenCredentials extends CallCredentials {
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String token;
  private final Path tokenFile;

  private BearerTokenCredentials(String token, Path tokenFile) {
    this.token = token;
    this.tokenFile = tokenFile;
  }

  /** REQUIRES: {@code token} is not empty. */
  public static BearerTokenCredentials ofToken(String token) {
    if (token.isEmpty()) {
      throw new IllegalArgumentException("bearer token: empty");
    }
    return new BearerTokenCredentials(token, null);
  }

  public static BearerTokenCredentials fromFile(Path tokenFile) {
    return new BearerTokenCredentials(null, tokenFile);
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    if (tokenFile == null) {
      applier.apply(headerWith(token));
      return;
    }
    // File I/O may block, so it must not run on the transport's thread.
    appExecutor.execute(() -> applyFromFile(applier));
  }

  private void applyFromFile(MetadataApplier applier) {
    String read;
    try {
      read = new String(Files.readAllBytes(tokenFile), StandardCharsets.UTF_8).strip();
    } catch (IOException | RuntimeException e) {
      applier.fail(
          Status.UNAUTHENTICATED
              .withDescription("token file " + tokenFile + ": cannot read: " + e)
              .withCause(e));
      return;
    }
    if (read.isEmpty()) {
      applier.fail(Status.UNAUTHENTICATED.withDescription("token file " + tokenFile + ": empty"));
      return;
    }
    applier.apply(headerWith(read));
  }

  private static Metadata headerWith(String token) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    return headers;
  }
}
