package io.informerd.kubernetes.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.informerd.client.Connection;
import io.informerd.client.e2e.E2eEnvironment;
import io.informerd.client.e2e.InformerdProcess;
import io.informerd.client.ResourceRef;
import io.informerd.kubernetes.InformerdInformers;
import io.informerd.kubernetes.InformerdListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.Config;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * client-java's SharedInformerFactory, informer and Lister fed through the
 * adapter by a real informerd against the real apiserver: the Lister and the
 * handler calls equal the apiserver's LIST after creates, updates and
 * deletes, and after changes made while informerd was down.
 */
public class KubernetesClientE2ETest {
  private static final Duration CONVERGENCE_TIMEOUT = Duration.ofSeconds(30);

  @Rule public TemporaryFolder temp = new TemporaryFolder();

  /** Replays handler calls into a key -> resourceVersion map. */
  private static final class Mirror implements ResourceEventHandler<V1ConfigMap> {
    private final Map<String, String> state = new HashMap<>();

    @Override
    public synchronized void onAdd(V1ConfigMap cm) {
      state.put(key(cm), cm.getMetadata().getResourceVersion());
    }

    @Override
    public synchronized void onUpdate(V1ConfigMap oldCm, V1ConfigMap newCm) {
      state.put(key(newCm), newCm.getMetadata().getResourceVersion());
    }

    @Override
    public synchronized void onDelete(V1ConfigMap cm, boolean finalStateUnknown) {
      state.remove(key(cm));
    }

    synchronized Map<String, String> state() {
      return new TreeMap<>(state);
    }
  }

  private static String key(V1ConfigMap cm) {
    return cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName();
  }

  private static Map<String, String> versions(Iterable<V1ConfigMap> items) {
    Map<String, String> out = new TreeMap<>();
    for (V1ConfigMap cm : items) {
      out.put(key(cm), cm.getMetadata().getResourceVersion());
    }
    return out;
  }

  private static V1ConfigMap configMap(String namespace, String name, String value) {
    return new V1ConfigMap()
        .metadata(new V1ObjectMeta().namespace(namespace).name(name))
        .putDataItem("value", value);
  }

  private static void update(CoreV1Api api, String namespace, String name, String value)
      throws ApiException {
    V1ConfigMap cm = api.readNamespacedConfigMap(name, namespace).execute();
    api.replaceNamespacedConfigMap(name, namespace, cm.putDataItem("value", value)).execute();
  }

  /** Polls until the Lister and the handler replay both equal the apiserver's LIST. */
  private static void assertConverges(
      CoreV1Api api, String namespace, Lister<V1ConfigMap> lister, Mirror mirror)
      throws Exception {
    Map<String, String> expected =
        versions(api.listNamespacedConfigMap(namespace).execute().getItems());
    Supplier<Boolean> done =
        () -> expected.equals(versions(lister.list())) && expected.equals(mirror.state());
    Instant deadline = Instant.now().plus(CONVERGENCE_TIMEOUT);
    while (!done.get() && Instant.now().isBefore(deadline)) {
      Thread.sleep(50); // polling a condition with a deadline
    }
    assertEquals("Lister vs apiserver LIST", expected, versions(lister.list()));
    assertEquals("handler calls vs apiserver LIST", expected, mirror.state());
  }

  @Test
  public void listerEqualsTheApiserverThroughChurnAndAnInformerdRestart() throws Exception {
    E2eEnvironment env = E2eEnvironment.require();
    ApiClient apiClient = Config.fromConfig(env.kubeconfig.toString());
    apiClient.setHttpClient(apiClient.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build());
    CoreV1Api api = new CoreV1Api(apiClient);
    String namespace = "java-kc-e2e-" + UUID.randomUUID().toString().substring(0, 8);
    api.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(namespace))).execute();
    SharedInformerFactory factory = new SharedInformerFactory(apiClient);
    try (InformerdProcess informerd = new InformerdProcess(env, temp.newFile("informerd.log"))) {
      for (int i = 0; i < 5; i++) {
        api.createNamespacedConfigMap(namespace, configMap(namespace, "cm" + i, "initial")).execute();
      }
      informerd.start();
      Connection connection = Connection.builder().target(informerd.grpcAddress()).build();
      SharedIndexInformer<V1ConfigMap> informer =
          InformerdInformers.sharedIndexInformerFor(
              factory,
              InformerdListerWatcher.builder(
                      connection, V1ConfigMap.class, V1ConfigMapList.class,
                      new ResourceRef("", "v1", "configmaps"))
                  .namespace(namespace)
                  .build(),
              V1ConfigMap.class,
              0);
      Mirror mirror = new Mirror();
      informer.addEventHandler(mirror);
      Lister<V1ConfigMap> lister = new Lister<>(informer.getIndexer(), namespace);
      factory.startAllRegisteredInformers();
      try {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!informer.hasSynced() && Instant.now().isBefore(deadline)) {
          Thread.sleep(20);
        }
        assertTrue("informer synced", informer.hasSynced());
        assertEquals(5, lister.list().size());
        assertEquals("ConfigMap", lister.get("cm0").getKind());
        assertEquals("v1", lister.get("cm0").getApiVersion());
        assertEquals("initial", lister.get("cm0").getData().get("value"));

        for (int round = 0; round < 3; round++) {
          update(api, namespace, "cm0", "round" + round);
          update(api, namespace, "cm1", "round" + round);
          api.createNamespacedConfigMap(namespace, configMap(namespace, "live" + round, "x")).execute();
        }
        api.deleteNamespacedConfigMap("cm2", namespace).execute();
        assertConverges(api, namespace, lister, mirror);
        assertEquals("round2", lister.get("cm0").getData().get("value"));

        informerd.stop();
        api.deleteNamespacedConfigMap("cm3", namespace).execute();
        update(api, namespace, "cm4", "while-down");
        api.createNamespacedConfigMap(namespace, configMap(namespace, "down", "x")).execute();
        informerd.start();
        assertConverges(api, namespace, lister, mirror);

        update(api, namespace, "cm0", "after-restart");
        api.deleteNamespacedConfigMap("live0", namespace).execute();
        assertConverges(api, namespace, lister, mirror);
      } finally {
        factory.stopAllRegisteredInformers();
        connection.close();
      }
    } finally {
      api.deleteNamespace(namespace).execute();
    }
  }
}
