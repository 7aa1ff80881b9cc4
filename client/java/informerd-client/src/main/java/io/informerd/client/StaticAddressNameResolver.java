package io.informerd.client;

import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.StatusOr;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Resolves a channel to a fixed list of server addresses so that a
 * round_robin channel spreads calls over several informerd replicas that
 * have no shared DNS name. Each host name is looked up when the channel
 * (re)resolves.
 */
final class StaticAddressNameResolver extends NameResolver {
  private final List<HostPort> addresses;
  private Listener2 listener;

  /** REQUIRES: {@code addresses} is not empty. */
  StaticAddressNameResolver(List<HostPort> addresses) {
    this.addresses = List.copyOf(addresses);
  }

  /** A factory that returns this resolver for any target. */
  static NameResolver.Factory factoryFor(List<HostPort> addresses) {
    return new NameResolver.Factory() {
      @Override
      public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
        return new StaticAddressNameResolver(addresses);
      }

      @Override
      public String getDefaultScheme() {
        return "informerd-static";
      }
    };
  }

  @Override
  public String getServiceAuthority() {
    return addresses.get(0).toString();
  }

  @Override
  public void start(Listener2 listener) {
    this.listener = listener;
    resolve();
  }

  /** The channel asks again after connection failures; look the names up anew. */
  @Override
  public void refresh() {
    resolve();
  }

  private void resolve() {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (HostPort address : addresses) {
      InetSocketAddress resolved = new InetSocketAddress(address.host, address.port);
      if (!resolved.isUnresolved()) {
        groups.add(new EquivalentAddressGroup(resolved));
      }
    }
    if (groups.isEmpty()) {
      listener.onError(
          Status.UNAVAILABLE.withDescription("addresses: none of " + addresses + " resolves"));
      return;
    }
    listener.onResult(
        ResolutionResult.newBuilder()
            .setAddressesOrError(StatusOr.fromValue(groups)).setAttributes(Attributes.EMPTY).build());
  }

  @Override
  public void shutdown() {}
}
