package io.informerd.client.examples;

import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.kubernetes.InformerdInformers;
import io.informerd.kubernetes.InformerdListerWatcher;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A ConfigMap controller written as client-java users write them
 * (SharedInformerFactory, ControllerBuilder, a Reconciler reading through a
 * Lister), except that its informer is served by informerd: the one line
 * marked "informerd" below replaces
 * {@code factory.sharedIndexInformerFor(callGenerator, V1ConfigMap.class, V1ConfigMapList.class)}.
 *
 * <pre>
 * KubernetesClientController --server ADDR --resource configmaps [-n NS] [-l SELECTOR] [--token-file F] [--ca-file F]
 * </pre>
 *
 * The apiserver client (for the writes a real controller makes) comes from
 * KUBECONFIG, or client-java's defaults. stdout carries the e2e harness's
 * lines: SYNCED, ADD, UPDATE, DELETE from an event handler, RECONCILED from
 * the Reconciler, and at SIGTERM the sorted CACHE lines; logs go to stderr.
 */
public final class KubernetesClientController {
  static final String USAGE =
      "usage: KubernetesClientController --server ADDR --resource configmaps [-n NS]"
          + " [-l SELECTOR] [--token-file F] [--ca-file F]";

  private KubernetesClientController() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable t) {
      // The informers' threads would keep a failed program alive.
      System.err.println("example: " + t);
      t.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }

  private static void run(String[] args) throws IOException {
    ExampleOptions options = ExampleOptions.parseOrExit(args, USAGE);
    if (!options.resource.equals("configmaps")) {
      System.err.println("example: --resource: this controller reconciles configmaps, got "
          + options.resource);
      System.exit(2);
    }
    Output out = new Output(new PrintStream(System.out, true, StandardCharsets.UTF_8));

    String kubeconfig = System.getenv("KUBECONFIG");
    ApiClient apiClient =
        kubeconfig == null || kubeconfig.isEmpty() ? Config.defaultClient() : Config.fromConfig(kubeconfig);
    // As every client-java informer program does: the factory refuses a
    // client whose reads time out.
    apiClient.setHttpClient(apiClient.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build());
    SharedInformerFactory factory = new SharedInformerFactory(apiClient);
    Connection informerd = options.connect();

    // informerd: the informer's list and watch go to informerd instead of the apiserver.
    SharedIndexInformer<V1ConfigMap> informer =
        InformerdInformers.sharedIndexInformerFor(
            factory,
            InformerdListerWatcher.builder(
                    informerd, V1ConfigMap.class, V1ConfigMapList.class,
                    new ResourceRef("", "v1", "configmaps"))
                .namespace(options.namespace)
                .labelSelector(options.labelSelector)
                .build(),
            V1ConfigMap.class,
            0);
    Lister<V1ConfigMap> lister = new Lister<>(informer.getIndexer());
    informer.addEventHandler(new PrintingHandler(out, informer));

    Reconciler reconciler =
        request -> {
          V1ConfigMap cm = lister.namespace(request.getNamespace()).get(request.getName());
          out.println("RECONCILED " + request.getNamespace() + "/" + request.getName() + " "
              + (cm == null ? "absent" : cm.getMetadata().getResourceVersion()));
          return new Result(false);
        };
    Controller controller =
        ControllerBuilder.defaultBuilder(factory)
            .watch(queue -> ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, queue).build())
            .withReconciler(reconciler)
            .withReadyFunc(informer::hasSynced)
            .withWorkerCount(2)
            .withName("configmap-example")
            .build();

    // The JVM runs shutdown hooks on SIGTERM and then exits with 143;
    // halting from the hook after the cache is printed makes the status 0.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  controller.shutdown();
                  factory.stopAllRegisteredInformers();
                  out.printCache(lister.list());
                  informerd.close();
                  Runtime.getRuntime().halt(0);
                }));

    factory.startAllRegisteredInformers();
    Thread synced =
        new Thread(
            () -> {
              while (!informer.hasSynced()) {
                try {
                  Thread.sleep(Duration.ofMillis(20).toMillis()); // no sync callback to wait on
                } catch (InterruptedException e) {
                  return;
                }
              }
              out.synced();
            },
            "synced-reporter");
    synced.setDaemon(true);
    synced.start();
    controller.run();
  }

  /** stdout, one whole line at a time, SYNCED at most once. */
  private static final class Output {
    private final PrintStream out;
    private boolean syncedPrinted;

    Output(PrintStream out) {
      this.out = out;
    }

    synchronized void println(String line) {
      out.println(line);
    }

    synchronized void synced() {
      if (!syncedPrinted) {
        syncedPrinted = true;
        out.println("SYNCED");
      }
    }

    synchronized void printCache(List<V1ConfigMap> objects) {
      for (String line :
          objects.stream()
              .sorted(Comparator.comparing(KubernetesClientController::key))
              .map(cm -> "CACHE " + key(cm) + " " + cm.getMetadata().getResourceVersion())
              .collect(Collectors.toList())) {
        out.println(line);
      }
      out.flush();
    }
  }

  private static String key(V1ConfigMap cm) {
    return cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName();
  }

  /** Prints each handler call as one line. */
  private static final class PrintingHandler implements ResourceEventHandler<V1ConfigMap> {
    private final Output out;
    private final SharedIndexInformer<V1ConfigMap> informer;

    PrintingHandler(Output out, SharedIndexInformer<V1ConfigMap> informer) {
      this.out = out;
      this.informer = informer;
    }

    @Override
    public void onAdd(V1ConfigMap cm) {
      out.println("ADD " + key(cm) + " " + cm.getMetadata().getResourceVersion());
    }

    @Override
    public void onUpdate(V1ConfigMap oldCm, V1ConfigMap newCm) {
      // Updates come only after the initial list was delivered; say SYNCED
      // first if the reporter thread has not yet.
      reportSyncedIfSo();
      out.println("UPDATE " + key(newCm) + " " + oldCm.getMetadata().getResourceVersion() + " "
          + newCm.getMetadata().getResourceVersion());
    }

    @Override
    public void onDelete(V1ConfigMap cm, boolean deletedFinalStateUnknown) {
      reportSyncedIfSo();
      out.println("DELETE " + key(cm) + " " + cm.getMetadata().getResourceVersion()
          + (deletedFinalStateUnknown ? " final-state-unknown" : ""));
    }

    private void reportSyncedIfSo() {
      if (informer.hasSynced()) {
        out.synced();
      }
    }
  }
}
