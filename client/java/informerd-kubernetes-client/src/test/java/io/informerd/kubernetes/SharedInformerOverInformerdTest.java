package io.informerd.kubernetes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.informerd.client.ResourceRef;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** client-java's own SharedInformerFactory, informer and Lister, fed by the adapter. */
public class SharedInformerOverInformerdTest {
  private FakeInformerd server;
  private SharedInformerFactory factory;
  private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

  @Before
  public void setUp() throws Exception {
    server = new FakeInformerd();
    ApiClient apiClient = new ApiClient();
    // client-java's factory insists on it (for watches it would run itself).
    apiClient.setHttpClient(apiClient.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build());
    factory = new SharedInformerFactory(apiClient);
  }

  @After
  public void tearDown() {
    factory.stopAllRegisteredInformers();
    server.close();
  }

  @Test
  public void informerRelistsWhenInformerdSaysTheResumePointIsTooOld() throws Exception {
    server.scriptRelistAfterTooOldWatch();

    SharedIndexInformer<V1ConfigMap> informer =
        InformerdInformers.sharedIndexInformerFor(
            factory,
            InformerdListerWatcher.builder(
                    server.channel, null, V1ConfigMap.class, V1ConfigMapList.class,
                    new ResourceRef("", "v1", "configmaps"))
                .build(),
            V1ConfigMap.class,
            0);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(V1ConfigMap obj) {
        calls.add("ADD " + obj.getMetadata().getName() + " " + obj.getMetadata().getResourceVersion());
      }

      @Override
      public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {
        calls.add("UPDATE " + newObj.getMetadata().getName() + " "
            + oldObj.getMetadata().getResourceVersion() + " " + newObj.getMetadata().getResourceVersion());
      }

      @Override
      public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {
        calls.add("DELETE " + obj.getMetadata().getName());
      }
    });
    factory.startAllRegisteredInformers();

    Lister<V1ConfigMap> lister = new Lister<>(informer.getIndexer());
    waitFor(() -> keys(lister).equals(List.of("ns/a@16", "ns/c@11")), () -> keys(lister).toString());
    assertTrue(informer.hasSynced());
    assertEquals("ConfigMap", lister.namespace("ns").get("c").getKind());

    assertEquals("", server.nextListRequest().getResourceVersion()); // "0": any
    assertEquals("10", server.nextWatchRequest().getResourceVersion());
    // After the 410 the reflector lists the latest state again.
    assertEquals("", server.nextListRequest().getResourceVersion());
    assertEquals("20", server.nextWatchRequest().getResourceVersion());

    // Within the initial list and within the relist the order is the
    // store's; the phases come in order.
    List<String> seen = drainUntil(6);
    assertEquals(Set.of("ADD a 5", "ADD b 6", "ADD c 11"), Set.copyOf(seen.subList(0, 3)));
    assertEquals(
        Set.of("UPDATE a 5 16", "UPDATE c 11 11", "DELETE b"), Set.copyOf(seen.subList(3, 6)));
  }

  private List<String> drainUntil(int count) throws InterruptedException {
    List<String> seen = new java.util.ArrayList<>();
    while (seen.size() < count) {
      String call = calls.poll(10, TimeUnit.SECONDS);
      if (call == null) {
        throw new AssertionError("handler calls so far: " + seen);
      }
      seen.add(call);
    }
    return seen;
  }

  private static List<String> keys(Lister<V1ConfigMap> lister) {
    return lister.list().stream()
        .map(cm -> cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName() + "@"
            + cm.getMetadata().getResourceVersion())
        .sorted()
        .collect(Collectors.toList());
  }

  private static void waitFor(BooleanSupplier condition, java.util.function.Supplier<String> state)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(15));
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("condition not met within 15s; state: " + state.get());
      }
      Thread.sleep(20); // polling a condition with a deadline, not synchronising by sleep
    }
  }
}
