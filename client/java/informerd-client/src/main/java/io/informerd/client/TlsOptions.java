package io.informerd.client;

import java.nio.file.Path;
import java.util.Optional;

/**
 * How a {@link Connection} authenticates the server and, optionally, itself
 * over TLS. Files are PEM; the client key must be PKCS#8 ("BEGIN PRIVATE
 * KEY"), as Netty reads no other format without extra libraries. Immutable.
 */
public final class TlsOptions {
  private final Path caFile;
  private final Path certFile;
  private final Path keyFile;
  private final String serverName;

  private TlsOptions(Path caFile, Path certFile, Path keyFile, String serverName) {
    this.caFile = caFile;
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.serverName = serverName;
  }

  /** Trusts the JVM's default CAs. */
  public static TlsOptions systemRoots() {
    return new TlsOptions(null, null, null, null);
  }

  /** Trusts only the CAs in {@code caFile}. */
  public static TlsOptions withCa(Path caFile) {
    return new TlsOptions(caFile, null, null, null);
  }

  /** Also presents this client certificate (mutual TLS). */
  public TlsOptions withClientCertificate(Path certFile, Path keyFile) {
    return new TlsOptions(caFile, certFile, keyFile, serverName);
  }

  /**
   * Verifies the server's certificate against {@code serverName} instead of
   * the host in the address (needed when connecting by IP, or to several
   * replicas sharing one certificate).
   */
  public TlsOptions withServerName(String serverName) {
    return new TlsOptions(caFile, certFile, keyFile, serverName);
  }

  public Optional<Path> caFile() {
    return Optional.ofNullable(caFile);
  }

  public Optional<Path> certFile() {
    return Optional.ofNullable(certFile);
  }

  public Optional<Path> keyFile() {
    return Optional.ofNullable(keyFile);
  }

  public Optional<String> serverName() {
    return Optional.ofNullable(serverName);
  }
}
