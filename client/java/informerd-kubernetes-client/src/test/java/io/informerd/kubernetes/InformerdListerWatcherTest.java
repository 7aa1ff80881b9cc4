package io.informerd.kubernetes;

import static io.informerd.kubernetes.FakeInformerd.bookmark;
import static io.informerd.kubernetes.FakeInformerd.configMap;
import static io.informerd.kubernetes.FakeInformerd.event;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.grpc.Status;
import io.informerd.client.ResourceRef;
import io.informerd.v1.ListRequest;
import io.informerd.v1.ListResponse;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

public class InformerdListerWatcherTest {
  private FakeInformerd server;
  private InformerdListerWatcher<V1ConfigMap, V1ConfigMapList> lw;

  @Before
  public void setUp() throws Exception {
    server = new FakeInformerd();
    lw =
        InformerdListerWatcher.builder(
                server.channel, null, V1ConfigMap.class, V1ConfigMapList.class,
                new ResourceRef("", "v1", "configmaps"))
            .namespace("ns")
            .labelSelector("app=web")
            .fieldSelector("metadata.name!=x")
            .build();
  }

  @After
  public void tearDown() {
    server.close();
  }

  @Test
  public void listFollowsPagesAndDecodesWithTheClientsModels() throws Exception {
    // The second item lacks apiVersion and kind, as LIST-ingested objects of
    // older informerd servers did.
    server.answerList(ListResponse.newBuilder()
        .addItems(configMap("ns", "a", "5", true))
        .setResourceVersion("7").setContinueToken("page2").build());
    server.answerList(ListResponse.newBuilder()
        .addItems(configMap("ns", "b", "6", false))
        .setResourceVersion("7").build());

    V1ConfigMapList list = lw.list(new CallGeneratorParams(false, "0", null));

    assertEquals("7", list.getMetadata().getResourceVersion());
    assertEquals(2, list.getItems().size());
    V1ConfigMap b = list.getItems().get(1);
    assertEquals("b", b.getMetadata().getName());
    assertEquals("6", b.getMetadata().getResourceVersion());
    assertEquals("6", b.getData().get("k"));
    assertEquals("v1", b.getApiVersion());
    assertEquals("ConfigMap", b.getKind());
    ListRequest first = server.nextListRequest();
    assertEquals("configmaps", first.getResource().getResource());
    assertEquals("v1", first.getResource().getVersion());
    assertEquals("ns", first.getNamespace());
    assertEquals("app=web", first.getLabelSelector());
    assertEquals("metadata.name!=x", first.getFieldSelector());
    assertEquals("", first.getResourceVersion()); // "0": any version, the latest will do
    assertEquals("", first.getContinueToken());
    assertEquals("page2", server.nextListRequest().getContinueToken());

    server.answerList(ListResponse.newBuilder().setResourceVersion("9").build());
    assertEquals(0, lw.list(new CallGeneratorParams(false, "8", null)).getItems().size());
    assertEquals("8", server.nextListRequest().getResourceVersion());
  }

  @Test
  public void listErrorsAreTheApiserversHttpCodes() throws Exception {
    server.failList(Status.OUT_OF_RANGE.withDescription("too old resource version: 1 (5)"));
    server.failList(Status.UNAVAILABLE.withDescription("not synced"));
    server.failList(Status.INVALID_ARGUMENT.withDescription("label_selector: bad"));
    for (int code : List.of(410, 503, 400)) {
      try {
        lw.list(new CallGeneratorParams(false, "1", null));
        fail("list succeeded; want HTTP " + code);
      } catch (ApiException e) {
        assertEquals(code, e.getCode());
        assertTrue(e.getResponseBody(), e.getResponseBody().contains("\"code\":" + code));
      }
    }
  }

  @Test
  public void watchMapsEventsAndBookmarks() throws Exception {
    server.addWatch(new FakeInformerd.WatchScript(List.of(
        event(WatchEvent.Type.ADDED, "ns", "a", "11"),
        event(WatchEvent.Type.MODIFIED, "ns", "a", "12"),
        bookmark("13"),
        event(WatchEvent.Type.DELETED, "ns", "a", "14")), Status.OK));

    try (Watchable<V1ConfigMap> watch = lw.watch(new CallGeneratorParams(true, "10", 60))) {
      List<String> seen = new java.util.ArrayList<>();
      while (watch.hasNext()) {
        Watch.Response<V1ConfigMap> response = watch.next();
        seen.add(response.type + " " + response.object.getMetadata().getResourceVersion()
            + (response.object.getMetadata().getName() == null ? "" : " " + response.object.getMetadata().getName()));
      }
      assertEquals(List.of("ADDED 11 a", "MODIFIED 12 a", "BOOKMARK 13", "DELETED 14 a"), seen);
    }
    WatchRequest request = server.nextWatchRequest();
    assertEquals("10", request.getResourceVersion());
    assertTrue(request.getAllowBookmarks());
    assertFalse(request.getSendInitialEvents());
    assertEquals("ns", request.getNamespace());
    assertEquals("app=web", request.getLabelSelector());
  }

  @Test
  public void tooOldOrLaggingWatchIsA410ErrorEvent() throws Exception {
    for (Status status : List.of(
        Status.OUT_OF_RANGE.withDescription("too old resource version: 10 (20)"),
        Status.RESOURCE_EXHAUSTED.withDescription("watcher fell behind"))) {
      server.addWatch(new FakeInformerd.WatchScript(
          List.of(event(WatchEvent.Type.ADDED, "ns", "a", "11")), status));
      try (Watchable<V1ConfigMap> watch = lw.watch(new CallGeneratorParams(true, "10", 60))) {
        assertEquals("ADDED", watch.next().type);
        Watch.Response<V1ConfigMap> error = watch.next();
        assertEquals("ERROR", error.type);
        assertNull(error.object);
        assertEquals(Integer.valueOf(410), error.status.getCode());
        assertFalse(watch.hasNext());
      }
    }
  }

  @Test
  public void watchRefusedBeforeAnyEventIsA429AndTheNextListWaits() throws Exception {
    server.addWatch(new FakeInformerd.WatchScript(
        List.of(), Status.RESOURCE_EXHAUSTED.withDescription("too many watches for \"ipv4:127.0.0.1\"")));
    try (Watchable<V1ConfigMap> watch = lw.watch(new CallGeneratorParams(true, "10", 60))) {
      Watch.Response<V1ConfigMap> error = watch.next();
      assertEquals("ERROR", error.type);
      assertEquals(Integer.valueOf(429), error.status.getCode());
      assertFalse(watch.hasNext());
    }
    server.answerList(ListResponse.newBuilder().setResourceVersion("12").build());
    Instant start = Instant.now();
    lw.list(new CallGeneratorParams(false, "10", null));
    Duration waited = Duration.between(start, Instant.now());
    assertTrue("the list after a refusal waited " + waited, waited.compareTo(RefusalBackoff.INITIAL) >= 0);
  }

  @Test
  public void refusedListIsA429() throws Exception {
    server.failList(Status.RESOURCE_EXHAUSTED.withDescription("list rate of ipv4:127.0.0.1 is over its limit"));
    try {
      lw.list(new CallGeneratorParams(false, "0", null));
      fail("want an ApiException");
    } catch (ApiException e) {
      assertEquals(429, e.getCode());
    }
  }

  @Test
  public void unavailableWatchReopensFromTheLastVersionDelivered() throws Exception {
    server.addWatch(new FakeInformerd.WatchScript(
        List.of(event(WatchEvent.Type.ADDED, "ns", "a", "11")),
        Status.UNAVAILABLE.withDescription("shutting down")));
    server.addWatch(new FakeInformerd.WatchScript(
        List.of(event(WatchEvent.Type.MODIFIED, "ns", "a", "12")), Status.OK));
    try (Watchable<V1ConfigMap> watch = lw.watch(new CallGeneratorParams(true, "10", 60))) {
      assertEquals("ADDED", watch.next().type);
      assertEquals("MODIFIED", watch.next().type);
      assertFalse(watch.hasNext());
    }
    assertEquals("10", server.nextWatchRequest().getResourceVersion());
    assertEquals("11", server.nextWatchRequest().getResourceVersion());
  }

  @Test
  public void watchEndsAtItsTimeoutAndOnClose() throws Exception {
    server.addWatch(new FakeInformerd.WatchScript(List.of(), null)); // stays open
    Instant start = Instant.now();
    try (Watchable<V1ConfigMap> watch = lw.watch(new CallGeneratorParams(true, "10", 1))) {
      assertFalse(watch.hasNext());
    }
    Duration took = Duration.between(start, Instant.now());
    assertTrue("timeout 1s took " + took, took.compareTo(Duration.ofMillis(900)) >= 0);
    assertTrue("timeout 1s took " + took, took.compareTo(Duration.ofSeconds(5)) < 0);

    server.addWatch(new FakeInformerd.WatchScript(List.of(), null));
    Watchable<V1ConfigMap> open = lw.watch(new CallGeneratorParams(true, "10", 600));
    Thread closer = new Thread(() -> {
      try {
        server.nextWatchRequest();
        server.nextWatchRequest();
      } catch (InterruptedException e) {
        return;
      }
      try {
        open.close();
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
    });
    closer.start();
    assertFalse(open.hasNext()); // returns once closed
    closer.join();
  }
}
