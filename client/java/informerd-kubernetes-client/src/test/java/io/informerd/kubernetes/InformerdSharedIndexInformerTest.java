package io.informerd.kubernetes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.informerd.client.ResourceRef;
import io.informerd.v1.ListResponse;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * {@link InformerdSharedIndexInformer} over a scripted informerd: what a
 * relist reports (where it differs from client-java's informer), tombstones,
 * a late handler's view after it, an empty initial list.
 */
public class InformerdSharedIndexInformerTest {
  private FakeInformerd server;
  private InformerdSharedInformerFactory factory;

  @Before
  public void setUp() throws Exception {
    server = new FakeInformerd();
    factory = InformerdSharedInformerFactory.builder(server.channel, null).build();
  }

  @After
  public void tearDown() {
    factory.close();
    server.close();
  }

  /** Records calls as lines, SYNCED included. */
  private static final class Lines implements SyncAwareEventHandler<V1ConfigMap> {
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    @Override
    public void onAdd(V1ConfigMap cm) {
      lines.add("ADD " + cm.getMetadata().getName() + " " + cm.getMetadata().getResourceVersion());
    }

    @Override
    public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
      lines.add("UPDATE " + n.getMetadata().getName() + " " + o.getMetadata().getResourceVersion()
          + " " + n.getMetadata().getResourceVersion());
    }

    @Override
    public void onDelete(V1ConfigMap cm, boolean unknown) {
      lines.add("DELETE " + cm.getMetadata().getName() + " " + cm.getMetadata().getResourceVersion()
          + (unknown ? " final-state-unknown" : ""));
    }

    @Override
    public void onSynced() {
      lines.add("SYNCED");
    }

    List<String> take(int n) throws InterruptedException {
      List<String> seen = new ArrayList<>();
      while (seen.size() < n) {
        String line = lines.poll(10, TimeUnit.SECONDS);
        if (line == null) {
          throw new AssertionError("calls so far: " + seen);
        }
        seen.add(line);
      }
      return seen;
    }
  }

  private InformerdSharedIndexInformer<V1ConfigMap> informer() {
    return factory.sharedIndexInformerFor(
        V1ConfigMap.class, V1ConfigMapList.class, new ResourceRef("", "v1", "configmaps"));
  }

  @Test
  public void relistReportsOnlyTheDifferenceToEveryHandler() throws Exception {
    server.scriptRelistAfterTooOldWatch();

    InformerdSharedIndexInformer<V1ConfigMap> informer = informer();
    Lines first = new Lines();
    Lines second = new Lines();
    HandlerRegistration firstRegistration = informer.addEventHandlerWithRegistration(first);
    informer.addEventHandler(second);
    assertFalse(firstRegistration.hasSynced());
    factory.startAllRegisteredInformers();

    for (Lines handler : List.of(first, second)) {
      List<String> seen = handler.take(6);
      assertEquals(Set.of("ADD a 5", "ADD b 6"), Set.copyOf(seen.subList(0, 2)));
      assertEquals(List.of("SYNCED", "ADD c 11"), seen.subList(2, 4));
      assertEquals(
          Set.of("UPDATE a 5 16", "DELETE b 6 final-state-unknown"), Set.copyOf(seen.subList(4, 6)));
    }
    assertTrue(firstRegistration.hasSynced());

    Lines late = new Lines();
    HandlerRegistration lateRegistration = informer.addEventHandlerWithRegistration(late);
    List<String> seen = late.take(3);
    assertEquals(Set.of("ADD a 16", "ADD c 11"), Set.copyOf(seen.subList(0, 2)));
    assertEquals("SYNCED", seen.get(2));
    assertTrue(lateRegistration.awaitSynced(Duration.ofSeconds(10)));
    // Nothing else: c's unchanged relist was not reported.
    assertNull(first.lines.poll(200, TimeUnit.MILLISECONDS));
    assertEquals("20", informer.lastSyncResourceVersion());
  }

  @Test
  public void anEmptyInitialListSyncsEveryHandler() throws Exception {
    server.answerList(ListResponse.newBuilder().setResourceVersion("3").build());
    server.addWatch(new FakeInformerd.WatchScript(List.of(), null));
    InformerdSharedIndexInformer<V1ConfigMap> informer = informer();
    Lines early = new Lines();
    HandlerRegistration registration = informer.addEventHandlerWithRegistration(early);
    factory.startAllRegisteredInformers();
    assertTrue(registration.awaitSynced(Duration.ofSeconds(10)));
    assertEquals(List.of("SYNCED"), early.take(1));
    assertTrue(informer.hasSynced());
    Lines late = new Lines();
    assertTrue(informer.addEventHandlerWithRegistration(late).awaitSynced(Duration.ofSeconds(10)));
    assertEquals(List.of("SYNCED"), late.take(1));
  }

  @Test
  public void stoppedInformerRefusesHandlersAndGenericApi() {
    InformerdSharedIndexInformer<V1ConfigMap> informer = informer();
    factory.close();
    assertThrows(IllegalStateException.class, () -> informer.addEventHandler(new Lines()));
    assertThrows(
        UnsupportedOperationException.class,
        () -> factory.sharedIndexInformerFor(
            (io.kubernetes.client.util.generic.GenericKubernetesApi<V1ConfigMap, V1ConfigMapList>) null,
            V1ConfigMap.class, 0));
  }
}
