package io.informerd.client.examples;

import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.kubernetes.InformerOptions;
import io.informerd.kubernetes.InformerdSharedIndexInformer;
import io.informerd.kubernetes.InformerdSharedInformerFactory;
import io.informerd.kubernetes.SyncAwareEventHandler;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The example program shared by all informerd client libraries: prints one
 * line per handler call and, on SIGTERM, the whole cache. In Java it is
 * client-java's informer model served by informerd: an
 * {@link InformerdSharedInformerFactory} hands out the informer (of
 * {@link DynamicKubernetesObject}s, so any resource works), and right after
 * the first handler has synced a second one joins the running informer.
 *
 * <pre>
 * ExampleInformer --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR] [--token-file F]
 *     [--ca-file F]
 * </pre>
 *
 * ADDR is "host:port", "dns:///name:port" or comma-separated "host:port"s.
 * stdout carries only SYNCED, ADD, UPDATE, DELETE, their "LATE " forms from
 * the second handler, LATE SYNCED, and (at exit) CACHE lines; logs go to
 * stderr.
 */
public final class ExampleInformer {
  private ExampleInformer() {}

  public static void main(String[] args) throws InterruptedException {
    ExampleOptions options = ExampleOptions.parseOrExit(args, ExampleOptions.USAGE);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Connection connection = options.connect();
    InformerdSharedInformerFactory factory =
        InformerdSharedInformerFactory.builder(connection).build();
    InformerdSharedIndexInformer<DynamicKubernetesObject> informer =
        factory.informerFor(
            InformerOptions.dynamic(ResourceRef.parse(options.resource))
                .namespace(options.namespace)
                .labelSelector(options.labelSelector));

    PrintingHandler late = new PrintingHandler(out, "LATE ", null);
    // The first handler's SYNCED comes after its adds of the initial list;
    // from there (its own thread, in order) the second handler joins.
    informer.addEventHandler(
        new PrintingHandler(out, "", () -> informer.addEventHandlerWithRegistration(late)));

    // The JVM runs shutdown hooks on SIGTERM and then exits with 143; halting
    // from the hook after the cache is printed makes the exit status 0.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // Returns once no handler runs: no handler line follows.
                  factory.close();
                  Map<String, String> cache = new TreeMap<>();
                  for (DynamicKubernetesObject object : informer.getIndexer().list()) {
                    cache.put(key(object), resourceVersion(object));
                  }
                  synchronized (out) {
                    cache.forEach((key, rv) -> out.println("CACHE " + key + " " + rv));
                    out.flush();
                  }
                  Runtime.getRuntime().halt(0);
                }));
    factory.startAllRegisteredInformers();
    Thread.currentThread().join();
  }

  private static String key(DynamicKubernetesObject object) {
    V1ObjectMeta meta = object.getMetadata();
    String ns = meta.getNamespace();
    return ns == null || ns.isEmpty() ? meta.getName() : ns + "/" + meta.getName();
  }

  private static String resourceVersion(DynamicKubernetesObject object) {
    return object.getMetadata().getResourceVersion();
  }

  /** Prints each call as one whole line, flushed; each handler runs on its own thread. */
  private static final class PrintingHandler
      implements SyncAwareEventHandler<DynamicKubernetesObject> {
    private final PrintStream out;
    private final String prefix;
    private final Runnable afterSynced; // may be null

    PrintingHandler(PrintStream out, String prefix, Runnable afterSynced) {
      this.out = out;
      this.prefix = prefix;
      this.afterSynced = afterSynced;
    }

    private void print(String line) {
      synchronized (out) {
        out.println(prefix + line);
      }
    }

    @Override
    public void onSynced() {
      print("SYNCED");
      if (afterSynced != null) {
        afterSynced.run();
      }
    }

    @Override
    public void onAdd(DynamicKubernetesObject object) {
      print("ADD " + key(object) + " " + resourceVersion(object));
    }

    @Override
    public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
      print("UPDATE " + key(newObject) + " " + resourceVersion(oldObject) + " "
          + resourceVersion(newObject));
    }

    @Override
    public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
      print("DELETE " + key(object) + " " + resourceVersion(object)
          + (finalStateUnknown ? " final-state-unknown" : ""));
    }
  }
}
