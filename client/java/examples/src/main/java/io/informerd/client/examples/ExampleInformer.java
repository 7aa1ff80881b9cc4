package io.informerd.client.examples;

import io.informerd.client.Connection;
import io.informerd.client.EventHandler;
import io.informerd.client.KubeObject;
import io.informerd.client.RemoteInformer;
import io.informerd.client.ResourceRef;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The example program shared by all informerd client libraries: prints one
 * line per handler call and, on SIGTERM, the whole cache.
 *
 * <pre>
 * ExampleInformer --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR] [--token-file F]
 * </pre>
 *
 * ADDR is "host:port", "dns:///name:port" or comma-separated "host:port"s.
 * stdout carries only SYNCED, ADD, UPDATE, DELETE and (at exit) CACHE lines;
 * logs go to stderr.
 */
public final class ExampleInformer {
  private ExampleInformer() {}

  public static void main(String[] args) throws InterruptedException {
    ExampleOptions options = ExampleOptions.parseOrExit(args, ExampleOptions.USAGE);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Connection connection = options.connect();

    RemoteInformer informer =
        RemoteInformer.builder(connection, ResourceRef.parse(options.resource))
            .namespace(options.namespace)
            .labelSelector(options.labelSelector)
            .addEventHandler(new PrintingHandler(out))
            .build();

    // The JVM runs shutdown hooks on SIGTERM and then exits with 143; halting
    // from the hook after the cache is printed makes the exit status 0.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  informer.close();
                  for (KubeObject object : informer.lister().list()) {
                    out.println("CACHE " + object.key() + " " + object.resourceVersion());
                  }
                  out.flush();
                  Runtime.getRuntime().halt(0);
                }));
    informer.start();
    Thread.currentThread().join();
  }

  /** Prints each handler call as one line, flushed. */
  private static final class PrintingHandler implements EventHandler {
    private final PrintStream out;

    PrintingHandler(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onSynced() {
      out.println("SYNCED");
    }

    @Override
    public void onAdd(KubeObject object) {
      out.println("ADD " + object.key() + " " + object.resourceVersion());
    }

    @Override
    public void onUpdate(KubeObject oldObject, KubeObject newObject) {
      out.println("UPDATE " + newObject.key() + " " + oldObject.resourceVersion() + " "
          + newObject.resourceVersion());
    }

    @Override
    public void onDelete(KubeObject object, boolean finalStateUnknown) {
      out.println("DELETE " + object.key() + " " + object.resourceVersion()
          + (finalStateUnknown ? " final-state-unknown" : ""));
    }
  }
}
