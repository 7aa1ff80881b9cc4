package io.informerd.client;

/**
 * A "host:port" address, with IPv6 hosts in brackets ("[::1]:50051").
 * Immutable.
 */
final class HostPort {
  final String host;
  final int port;

  private HostPort(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** @throws IllegalArgumentException naming the address and the reason */
  static HostPort parse(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("address \"" + address + "\": expected host:port");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("address \"" + address + "\": port is not a number");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("address \"" + address + "\": port out of range");
    }
    return new HostPort(host, port);
  }

  @Override
  public String toString() {
    return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
  }
}
