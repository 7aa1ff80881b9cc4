package informerd.ecosystem;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A fabric8 SharedIndexInformer, unmodified fabric8, against whatever server its kubeconfig names
 * (informerd's Kubernetes API port in tests/ecosystem/run.sh), over one namespace's ConfigMaps.
 *
 * <p>Usage: Fabric8Informer KUBECONFIG NAMESPACE CLIENT_NAME. Prints "SYNCED" once the informer
 * has synced and this client has written its own ConfigMap (the write passes through informerd to
 * the apiserver); when the ConfigMap named "done" is in the informer's store it prints "CACHE
 * {name: resourceVersion}" and exits 0.
 */
public final class Fabric8Informer {
  private Fabric8Informer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: Fabric8Informer KUBECONFIG NAMESPACE CLIENT_NAME");
      System.exit(2);
    }
    String namespace = args[1];
    String name = args[2];
    Config config = Config.fromKubeconfig(Files.readString(Path.of(args[0])));
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      SharedIndexInformer<ConfigMap> informer =
          client.configMaps().inNamespace(namespace).runnableInformer(0);
      Object done = new Object();
      informer.addEventHandler(
          new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap object) {
              changed();
            }

            @Override
            public void onUpdate(ConfigMap before, ConfigMap after) {
              changed();
            }

            @Override
            public void onDelete(ConfigMap object, boolean finalStateUnknown) {
              changed();
            }

            private void changed() {
              synchronized (done) {
                done.notifyAll();
              }
            }
          });
      informer.start().toCompletableFuture().get(120, TimeUnit.SECONDS);
      client
          .configMaps()
          .inNamespace(namespace)
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("written-by-" + name)
                  .endMetadata()
                  .withData(Map.of("client", name))
                  .build())
          .create();
      System.out.println("SYNCED");
      System.out.flush();
      synchronized (done) {
        while (informer.getStore().getByKey(namespace + "/done") == null) {
          done.wait();
        }
      }
      Map<String, String> cache =
          informer.getStore().list().stream()
              .collect(
                  Collectors.toMap(
                      c -> c.getMetadata().getName(),
                      c -> c.getMetadata().getResourceVersion(),
                      (a, b) -> b,
                      TreeMap::new));
      StringBuilder json = new StringBuilder("{");
      cache.forEach(
          (key, value) -> {
            if (json.length() > 1) json.append(',');
            json.append('"').append(key).append("\":\"").append(value).append('"');
          });
      System.out.println("CACHE " + json.append('}'));
      System.out.flush();
      informer.stop();
    }
    System.exit(0);
  }
}
