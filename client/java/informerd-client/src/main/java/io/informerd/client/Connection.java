package io.informerd.client;

import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.informerd.v1.CacheGrpc;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A gRPC channel to one or more informerd servers, with the client's
 * transport security, credentials and default deadline.
 *
 * <p>Thread-safe: share one Connection between all informers and callers of a
 * process. {@link #close} shuts the channel down; calls in flight fail with
 * UNAVAILABLE or CANCELLED.
 */
public final class Connection implements AutoCloseable {
  private final ManagedChannel channel;
  private final CallCredentials credentials;
  private final UnaryDeadlineInterceptor deadlines;
  private final ServerNamingInterceptor naming;
  private final String server;

  private Connection(
      ManagedChannel channel,
      CallCredentials credentials,
      UnaryDeadlineInterceptor deadlines,
      String server) {
    this.channel = channel;
    this.credentials = credentials;
    this.deadlines = deadlines;
    this.naming = new ServerNamingInterceptor(server);
    this.server = server;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The target or the addresses this connection reaches, as given to the builder. */
  public String server() {
    return server;
  }

  /**
   * A blocking stub carrying the credentials; unary calls get the default
   * deadline unless one is set with {@code withDeadlineAfter}. The
   * description of every failed call starts "informerd at SERVER: " and
   * includes the transport's reason (e.g. "Connection refused").
   */
  public CacheGrpc.CacheBlockingStub blockingStub() {
    CacheGrpc.CacheBlockingStub stub =
        CacheGrpc.newBlockingStub(channel).withInterceptors(deadlines, naming);
    return credentials == null ? stub : stub.withCallCredentials(credentials);
  }

  /** An asynchronous stub configured as {@link #blockingStub}. */
  public CacheGrpc.CacheStub asyncStub() {
    CacheGrpc.CacheStub stub = CacheGrpc.newStub(channel).withInterceptors(deadlines, naming);
    return credentials == null ? stub : stub.withCallCredentials(credentials);
  }

  public ManagedChannel channel() {
    return channel;
  }

  /**
   * Shuts the channel down and waits up to five seconds for calls to end. An
   * interrupt ends the wait early and stays set on the calling thread.
   */
  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Lets the channel reconnect at once instead of after its own exponential
   * backoff (up to two minutes in grpc-java): callers that retry on their own
   * schedule call this before each retry, so a restarted server is found as
   * soon as it listens.
   */
  public void resetConnectBackoff() {
    channel.resetConnectBackoff();
  }

  /** Configures a {@link Connection}. Not thread-safe. */
  public static final class Builder {
    private String target;
    private final List<HostPort> addresses = new ArrayList<>();
    private TlsOptions tls;
    private CallCredentials credentials;
    private boolean allowTokenWithoutTls;
    private Duration defaultDeadline = Duration.ofSeconds(30);

    private Builder() {}

    /**
     * A gRPC target: "host:port", or "dns:///name:port" to balance round
     * robin over every address the name resolves to.
     */
    public Builder target(String target) {
      this.target = target;
      this.addresses.clear();
      return this;
    }

    /**
     * Several "host:port" addresses (e.g. informerd replicas), balanced round
     * robin.
     *
     * @throws IllegalArgumentException naming a malformed address
     */
    public Builder addresses(List<String> addresses) {
      this.target = null;
      this.addresses.clear();
      for (String address : addresses) {
        this.addresses.add(HostPort.parse(address));
      }
      return this;
    }

    /** Uses TLS; without this call the connection is plaintext. */
    public Builder tls(TlsOptions tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Sends {@code token} on every call. A token needs {@link #tls} unless
     * {@link #allowTokenWithoutTls} is set.
     */
    public Builder bearerToken(String token) {
      this.credentials = BearerTokenCredentials.ofToken(token);
      return this;
    }

    /**
     * Reads the bearer token from {@code file} on every call. A token needs
     * {@link #tls} unless {@link #allowTokenWithoutTls} is set.
     */
    public Builder bearerTokenFile(Path file) {
      this.credentials = BearerTokenCredentials.fromFile(file);
      return this;
    }

    /**
     * Sends the bearer token over a plaintext connection. Only for servers on
     * loopback or behind a trusted proxy: the token would otherwise be
     * readable on the network. Without it, {@link #build} refuses a token
     * without {@link #tls}. (Go: {@code AllowTokenWithoutTLS}.)
     */
    public Builder allowTokenWithoutTls(boolean allow) {
      this.allowTokenWithoutTls = allow;
      return this;
    }

    /** Deadline for unary calls without their own; default 30 seconds. */
    public Builder defaultDeadline(Duration deadline) {
      if (deadline.isNegative() || deadline.isZero()) {
        throw new IllegalArgumentException("default deadline: must be positive, got " + deadline);
      }
      this.defaultDeadline = deadline;
      return this;
    }

    /**
     * @throws IllegalArgumentException if no target or address was given, or
     *     a TLS file is missing or unreadable (the message names it)
     * @throws IllegalStateException if a bearer token was given without
     *     {@link #tls} or {@link #allowTokenWithoutTls}
     */
    @SuppressWarnings("deprecation") // nameResolverFactory is still the only per-channel way.
    public Connection build() {
      if (credentials != null && tls == null && !allowTokenWithoutTls) {
        throw new IllegalStateException(
            "bearer token: a token needs TLS (or allowTokenWithoutTls(true))");
      }
      NettyChannelBuilder channel;
      if (!addresses.isEmpty()) {
        channel =
            NettyChannelBuilder.forTarget("informerd-static:///" + addresses.get(0))
                .nameResolverFactory(StaticAddressNameResolver.factoryFor(addresses))
                .defaultLoadBalancingPolicy("round_robin");
      } else if (target != null && !target.isEmpty()) {
        channel = NettyChannelBuilder.forTarget(target);
        if (target.startsWith("dns:")) {
          channel.defaultLoadBalancingPolicy("round_robin");
        }
      } else {
        throw new IllegalArgumentException("target: set a target or at least one address");
      }
      if (tls == null) {
        channel.usePlaintext();
      } else {
        channel.useTransportSecurity().sslContext(sslContext(tls));
        tls.serverName().ifPresent(channel::overrideAuthority);
      }
      String server =
          addresses.isEmpty()
              ? target
              : addresses.stream().map(HostPort::toString).collect(Collectors.joining(","));
      return new Connection(
          channel.build(), credentials, new UnaryDeadlineInterceptor(defaultDeadline), server);
    }

    private static SslContext sslContext(TlsOptions tls) {
      Optional<Path> cert = tls.certFile();
      Optional<Path> key = tls.keyFile();
      requireReadable("TLS CA file", tls.caFile());
      requireReadable("TLS client certificate file", cert);
      requireReadable("TLS client key file", key);
      if (cert.isPresent() != key.isPresent()) {
        throw new IllegalArgumentException("TLS options: client certificate and key go together");
      }
      try {
        SslContextBuilder builder = GrpcSslContexts.forClient();
        tls.caFile().ifPresent(ca -> builder.trustManager(ca.toFile()));
        if (cert.isPresent()) {
          builder.keyManager(cert.get().toFile(), key.get().toFile());
        }
        return builder.build();
      } catch (IOException | IllegalArgumentException e) {
        throw new IllegalArgumentException("TLS options: " + e.getMessage(), e);
      }
    }

    private static void requireReadable(String what, Optional<Path> file) {
      if (file.isPresent() && !Files.isReadable(file.get())) {
        throw new IllegalArgumentException(what + ": cannot read " + file.get());
      }
    }
  }
}
