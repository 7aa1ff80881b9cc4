package io.informerd.kubernetes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.informerd.client.ResourceRef;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.GetRequest;
import io.informerd.v1.GetResponse;
import io.informerd.v1.ListRequest;
import io.informerd.v1.ListResponse;
import io.informerd.v1.Projection;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The no-copy mode's client side against an in-process server: what its
 * reads ask informerd for (minimum versions on every page, selectors,
 * namespaces, indexes), errors, the mask, the version recorded before a
 * handler runs, and the hot cache. Against a real informerd:
 * e2e/NoCopyE2ETest.
 */
public class NoCopyTest {
  private static final ResourceRef CONFIGMAPS = new ResourceRef("", "v1", "configmaps");

  /** Get and List from {@code objects}, two pages when there are several. */
  private static final class Reads extends CacheGrpc.CacheImplBase {
    final Map<String, io.informerd.v1.Object> objects = new TreeMap<>();
    final List<GetRequest> gets = new ArrayList<>();
    final List<ListRequest> lists = new ArrayList<>();
    volatile Status failGets;

    @Override
    public synchronized void get(GetRequest request, StreamObserver<GetResponse> response) {
      gets.add(request);
      io.informerd.v1.Object object = objects.get(request.getNamespace() + "/" + request.getName());
      if (failGets != null) {
        response.onError(failGets.asRuntimeException());
      } else if (object == null) {
        response.onError(Status.NOT_FOUND
            .withDescription("configmaps \"" + request.getName() + "\" not found")
            .asRuntimeException());
      } else {
        response.onNext(GetResponse.newBuilder().setObject(object).setResourceVersion("100").build());
        response.onCompleted();
      }
    }

    @Override
    public synchronized void list(ListRequest request, StreamObserver<ListResponse> response) {
      lists.add(request);
      List<io.informerd.v1.Object> all = new ArrayList<>(objects.values());
      ListResponse.Builder page = ListResponse.newBuilder().setResourceVersion("100");
      if (request.getContinueToken().isEmpty() && all.size() > 1) {
        page.addItems(all.get(0)).setContinueToken("page2");
      } else {
        page.addAllItems(request.getContinueToken().isEmpty() ? all : all.subList(1, all.size()));
      }
      response.onNext(page.build());
      response.onCompleted();
    }
  }

  private final Reads reads = new Reads();
  private Server server;
  private ManagedChannel channel;

  @Before
  public void setUp() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).addService(reads).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @After
  public void tearDown() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private RemoteIndexer<V1ConfigMap> indexer(ReadVersions versions) {
    return RemoteIndexer.builder(channel, null, V1ConfigMap.class, CONFIGMAPS)
        .versions(versions)
        .build();
  }

  @Test
  public void readsAskForTheTrackedVersionOrALaterGivenOne() {
    reads.objects.put("ns/a", FakeInformerd.configMap("ns", "a", "7", true));
    ReadVersions versions = new ReadVersions();
    RemoteLister<V1ConfigMap> lister = new RemoteLister<>(indexer(versions));
    assertEquals("7", lister.namespace("ns").get("a").getMetadata().getResourceVersion());
    assertEquals("", reads.gets.get(0).getMinResourceVersion());
    versions.observe("42");
    versions.observe("30"); // never lowers it
    versions.observe("not-a-version");
    assertEquals("42", versions.version());
    lister.namespace("ns").get("a");
    assertEquals("42", reads.gets.get(1).getMinResourceVersion());
    lister.indexer().get("ns", "a", "50");
    assertEquals("50", reads.gets.get(2).getMinResourceVersion());
    lister.indexer().get("ns", "a", "9");
    assertEquals("42", reads.gets.get(3).getMinResourceVersion());
    // client-java's own Lister over the indexer reads the same way.
    assertEquals("a", new Lister<>(lister.indexer(), "ns").get("a").getMetadata().getName());
    assertEquals("42", reads.gets.get(4).getMinResourceVersion());
    assertEquals(1, lister.namespace("ns").list().size());
    assertEquals("42", reads.lists.get(0).getResourceVersion());
    try {
      lister.indexer().get("ns", "a", "x1");
      fail("a non-decimal minimum was sent");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("resourceVersion"));
    }
  }

  @Test
  public void everyPageOfAListKeepsItsMinimum() {
    for (String name : List.of("a", "b", "c")) {
      reads.objects.put("ns/" + name, FakeInformerd.configMap("ns", name, "5", true));
    }
    ReadVersions versions = new ReadVersions();
    versions.observe("61");
    List<V1ConfigMap> listed = new RemoteLister<>(indexer(versions)).list();
    assertEquals(3, listed.size());
    assertEquals("c", listed.get(2).getMetadata().getName());
    assertEquals(2, reads.lists.size());
    assertEquals("61", reads.lists.get(0).getResourceVersion());
    assertEquals("61", reads.lists.get(1).getResourceVersion());
    assertEquals("page2", reads.lists.get(1).getContinueToken());
  }

  @Test
  public void selectorsNamespacesAndIndexesGoToTheServer() {
    RemoteLister<V1ConfigMap> lister = new RemoteLister<>(indexer(new ReadVersions()));
    lister.namespace("shop").list("app in (web,api),!canary", "metadata.name=x");
    ListRequest request = reads.lists.get(0);
    assertEquals("shop", request.getNamespace());
    assertEquals("app in (web,api),!canary", request.getLabelSelector());
    assertEquals("metadata.name=x", request.getFieldSelector());
    assertEquals("configmaps", request.getResource().getResource());
    assertEquals(Projection.PROJECTION_FULL, request.getProjection());
    lister.indexer().byIndex("spec.nodeName", "n2");
    assertEquals("spec.nodeName", reads.lists.get(1).getIndexName());
    assertEquals("n2", reads.lists.get(1).getIndexValue());
    lister.indexer().byIndex("namespace", "other");
    assertEquals("", reads.lists.get(2).getIndexName());
    assertEquals("other", reads.lists.get(2).getNamespace());
  }

  @Test
  public void notFoundIsNullOtherFailuresAreTypedAndWritesAreRefused() {
    RemoteIndexer<V1ConfigMap> indexer = indexer(new ReadVersions());
    assertNull(indexer.getByKey("ns/missing"));
    reads.failGets = Status.UNAVAILABLE.withDescription("too large resource version: 42");
    try {
      indexer.getByKey("ns/a");
      fail("UNAVAILABLE was not raised");
    } catch (InformerdReadException e) {
      assertEquals(503, e.code());
      assertTrue(e.getMessage(), e.getMessage().contains("get configmaps ns/a"));
      assertTrue(e.getMessage(), e.getMessage().contains("too large resource version: 42"));
    }
    reads.failGets = Status.NOT_FOUND.withDescription("resource secrets is not served");
    try {
      indexer.getByKey("ns/a");
      fail("an unserved resource read as a missing object");
    } catch (InformerdReadException e) {
      assertEquals(404, e.code());
    }
    try {
      indexer.add(new V1ConfigMap());
      fail("add was accepted");
    } catch (UnsupportedOperationException expected) {
      assertTrue(expected.getMessage().contains("only reads"));
    }
    try {
      indexer.addIndexers(Map.of("app", cm -> List.of()));
      fail("addIndexers was accepted");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage().contains("[app]"));
    }
  }

  @Test
  public void aMaskBecomesTheRequestsFieldMask() throws Exception {
    assertEquals(Projection.PROJECTION_METADATA, NoCopyInformer.watchProjection(null));
    assertEquals(Projection.PROJECTION_METADATA, NoCopyInformer.watchProjection(List.of("metadata")));
    assertEquals(List.of(), NoCopyInformer.watchFields(List.of("metadata")));
    for (List<String> bad : List.of(List.<String>of(), List.of("data", ""))) {
      try {
        NoCopyInformer.builder(channel, null, V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
            .mask(bad);
        fail("mask " + bad + " was accepted");
      } catch (IllegalArgumentException expected) {
        assertTrue(expected.getMessage(), expected.getMessage().startsWith("mask"));
      }
    }
    try (FakeInformerd watch = new FakeInformerd()) {
      watch.answerList(ListResponse.newBuilder()
          .addItems(FakeInformerd.configMap("ns", "a", "11", true))
          .setResourceVersion("11")
          .build());
      watch.addWatch(new FakeInformerd.WatchScript(List.of(), null));
      List<String> mask = List.of("metadata.labels", "data");
      try (NoCopyInformer<V1ConfigMap> informer =
          NoCopyInformer.builder(
                  watch.channel, null, V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
              .namespace("ns")
              .mask(mask)
              .build()) {
        informer.run();
        ListRequest list = watch.listRequests.poll(10, TimeUnit.SECONDS);
        WatchRequest request = watch.watchRequests.poll(10, TimeUnit.SECONDS);
        assertEquals(Projection.PROJECTION_FULL, list.getProjection());
        assertEquals(mask, list.getFieldsList());
        assertEquals(Projection.PROJECTION_FULL, request.getProjection());
        assertEquals(mask, request.getFieldsList());
      }
    }
  }

  @Test
  public void handlersGetMetadataAndTheVersionIsTrackedBeforeTheyRun() throws Exception {
    try (FakeInformerd watch = new FakeInformerd()) {
      watch.answerList(ListResponse.newBuilder()
          .addItems(FakeInformerd.configMap("ns", "a", "11", true))
          .setResourceVersion("11")
          .build());
      watch.addWatch(new FakeInformerd.WatchScript(
          List.of(FakeInformerd.event(WatchEvent.Type.MODIFIED, "ns", "a", "15")), null));
      BlockingQueue<String> seen = new LinkedBlockingQueue<>();
      try (NoCopyInformer<V1ConfigMap> informer =
          NoCopyInformer.builder(
                  watch.channel, null, V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
              .namespace("ns")
              .build()) {
        informer.addEventHandler(new ResourceEventHandler<V1ConfigMap>() {
          @Override
          public void onAdd(V1ConfigMap cm) {
            seen.add(cm.getMetadata().getResourceVersion() + "@" + informer.versions().version());
          }

          @Override
          public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
            onAdd(n);
          }

          @Override
          public void onDelete(V1ConfigMap cm, boolean unknown) {}
        });
        informer.run();
        assertEquals("11@11", seen.poll(10, TimeUnit.SECONDS));
        assertEquals("15@15", seen.poll(10, TimeUnit.SECONDS));
        assertEquals(Projection.PROJECTION_METADATA,
            watch.listRequests.poll(10, TimeUnit.SECONDS).getProjection());
        assertEquals(Projection.PROJECTION_METADATA,
            watch.watchRequests.poll(10, TimeUnit.SECONDS).getProjection());
        assertEquals("ns", informer.metadataIndexer().getByKey("ns/a").getMetadata().getNamespace());
      }
    }
  }

  private static V1ConfigMap cm(String key, String version) {
    String[] parts = key.split("/");
    return new V1ConfigMap().metadata(
        new V1ObjectMeta().namespace(parts[0]).name(parts[1]).resourceVersion(version));
  }

  @Test
  public void hotCacheEvictsTheLeastRecentlyUsed() {
    Map<String, String> current = new TreeMap<>(Map.of("n/a", "1", "n/b", "1", "n/c", "1"));
    HotCache<V1ConfigMap> cache = new HotCache<>(2, current::get);
    cache.put("n/a", cm("n/a", "1"));
    cache.put("n/b", cm("n/b", "1"));
    assertEquals("1", cache.get("n/a").getMetadata().getResourceVersion()); // a is now newest
    cache.put("n/c", cm("n/c", "1"));
    assertEquals(List.of("n/a", "n/c"), cache.keys());
    assertEquals(1, cache.evictions());
    assertEquals(1, cache.hits());
    assertNull(cache.get("n/b"));
  }

  @Test
  public void hotCacheServesOnlyTheInformersCurrentVersion() {
    Map<String, String> current = new TreeMap<>(Map.of("n/a", "1"));
    HotCache<V1ConfigMap> cache = new HotCache<>(4, current::get);
    cache.put("n/a", cm("n/a", "1"));
    cache.put("n/x", cm("n/x", "1")); // not watched: never cached
    cache.put("n/a", cm("n/a", "0")); // older than the informer's: not cached
    assertEquals(List.of("n/a"), cache.keys());
    current.put("n/a", "2"); // an event the handlers may not have yet
    assertNull(cache.get("n/a"));
    assertEquals(1, cache.invalidations());
    assertEquals(List.of(), cache.keys());
    cache.put("n/a", cm("n/a", "2"));
    cache.invalidate("n/a");
    assertEquals(List.of(), cache.keys());
    try {
      new HotCache<V1ConfigMap>(0, current::get);
      fail("a cache of 0 objects was accepted");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage().contains("cacheSize"));
    }
  }
}
