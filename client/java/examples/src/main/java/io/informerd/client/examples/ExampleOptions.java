package io.informerd.client.examples;

import io.informerd.client.Connection;
import io.informerd.client.TlsOptions;
import java.nio.file.Path;
import java.util.Arrays;

/** Command line of {@link ExampleInformer}: flag values, filled by {@link #parse}. */
final class ExampleOptions {
  static final String USAGE =
      "usage: ExampleInformer --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR]"
          + " [--token-file F] [--ca-file F]";

  String server;
  String resource;
  String namespace = "";
  String labelSelector = "";
  String tokenFile;
  String caFile;

  private ExampleOptions() {}

  /**
   * A connection to --server: "host:port", "dns:///name:port" or
   * comma-separated "host:port"s, with --token-file's token if given, over
   * TLS verified with --ca-file's certificates if given.
   */
  Connection connect() {
    Connection.Builder builder = Connection.builder();
    if (server.contains(",")) {
      builder.addresses(Arrays.asList(server.split(",")));
    } else {
      builder.target(server);
    }
    if (tokenFile != null) {
      builder.bearerTokenFile(Path.of(tokenFile));
    }
    if (caFile != null) {
      builder.tls(TlsOptions.withCa(Path.of(caFile)));
    } else {
      // Without --ca-file the example talks to a local server (the e2e
      // suites); in a pod it is given the chart's CA.
      builder.allowTokenWithoutTls(true);
    }
    return builder.build();
  }

  /** Parses {@code args}; on a bad command line prints why and the usage, and exits 2. */
  static ExampleOptions parseOrExit(String[] args, String usage) {
    try {
      return parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("example: " + e.getMessage());
      System.err.println(usage);
      System.exit(2);
      return null;
    }
  }

  /** @throws IllegalArgumentException naming the offending flag */
  static ExampleOptions parse(String[] args) {
    ExampleOptions options = new ExampleOptions();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + ": missing value");
      }
      String value = args[++i];
      switch (flag) {
        case "--server":
          options.server = value;
          break;
        case "--resource":
          options.resource = value;
          break;
        case "-n":
        case "--namespace":
          options.namespace = value;
          break;
        case "-l":
        case "--selector":
          options.labelSelector = value;
          break;
        case "--token-file":
          options.tokenFile = value;
          break;
        case "--ca-file":
          options.caFile = value;
          break;
        default:
          throw new IllegalArgumentException(flag + ": unknown flag");
      }
    }
    if (options.server == null) {
      throw new IllegalArgumentException("--server: required");
    }
    if (options.resource == null) {
      throw new IllegalArgumentException("--resource: required");
    }
    return options;
  }
}
