package io.informerd.kubernetes.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.client.e2e.E2eEnvironment;
import io.informerd.client.e2e.InformerdProcess;
import io.informerd.kubernetes.HotCache;
import io.informerd.kubernetes.InformerdReadException;
import io.informerd.kubernetes.NoCopyInformer;
import io.informerd.kubernetes.RemoteIndexer;
import io.informerd.kubernetes.RemoteLister;
import io.informerd.v1.GetRequest;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.Config;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The no-copy mode ({@link NoCopyInformer}) against real informerd processes
 * and the kube-apiserver: read your events under writes, read through a
 * replica whose apiserver connection is delayed or stalled by a
 * {@link DelayProxy}; selectors and namespaces evaluated by informerd;
 * metadata-only events; the hot cache's eviction and invalidation.
 */
public class NoCopyE2ETest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final ResourceRef CONFIGMAPS = new ResourceRef("", "v1", "configmaps");

  @Rule public TemporaryFolder temp = new TemporaryFolder();

  private E2eEnvironment env;
  private CoreV1Api api;
  private String namespace;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @Before
  public void setUp() throws Exception {
    env = E2eEnvironment.require();
    ApiClient apiClient = Config.fromConfig(env.kubeconfig.toString());
    api = new CoreV1Api(apiClient);
    namespace = "java-nocopy-" + UUID.randomUUID().toString().substring(0, 8);
    createNamespace(namespace);
  }

  @After
  public void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (api != null) {
      api.deleteNamespace(namespace).execute();
    }
  }

  private void createNamespace(String name) throws ApiException {
    api.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name))).execute();
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    closing.add(resource);
    return resource;
  }

  private InformerdProcess informerd(String name, Path kubeconfig) throws Exception {
    InformerdProcess process =
        closeLater(new InformerdProcess(env, temp.newFile(name + ".log"), kubeconfig));
    process.start();
    return process;
  }

  private Connection connect(InformerdProcess process) {
    return closeLater(Connection.builder().target(process.grpcAddress()).build());
  }

  /** A replica whose apiserver connection goes through a new DelayProxy. */
  private DelayProxy replicaProxy;

  private InformerdProcess laggingReplica() throws Exception {
    URI url = URI.create(env.apiserverUrl);
    replicaProxy = closeLater(new DelayProxy(url.getHost(), url.getPort()));
    String original = "server: " + url.getScheme() + "://" + url.getAuthority();
    String text = Files.readString(env.kubeconfig);
    assertTrue("KUBECONFIG has no line " + original, text.contains(original));
    Path proxied = temp.newFile("proxied.kubeconfig").toPath();
    Files.writeString(proxied, text.replace(original, "server: https://127.0.0.1:" + replicaProxy.port()));
    return informerd("informerd-replica", proxied);
  }

  private static V1ConfigMap configMap(String ns, String name, String value, Map<String, String> labels) {
    return new V1ConfigMap()
        .metadata(new V1ObjectMeta().namespace(ns).name(name).labels(labels))
        .putDataItem("value", value);
  }

  private String create(String ns, String name, String value, Map<String, String> labels)
      throws ApiException {
    return api.createNamespacedConfigMap(ns, configMap(ns, name, value, labels)).execute()
        .getMetadata().getResourceVersion();
  }

  private String replace(String name, String value) throws ApiException {
    return api.replaceNamespacedConfigMap(name, namespace, configMap(namespace, name, value, null))
        .execute().getMetadata().getResourceVersion();
  }

  private static long rv(V1ConfigMap cm) {
    return Long.parseLong(cm.getMetadata().getResourceVersion());
  }

  private static String key(V1ConfigMap cm) {
    return cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName();
  }

  /**
   * For every event, reads the object (and every fourth time the namespace)
   * back through {@code lister}; records each answer older than the event.
   * {@code control} reads without a minimum beside it, to show that the
   * oracle would fail without one.
   */
  private static final class ReadYourEvents implements ResourceEventHandler<V1ConfigMap> {
    private final RemoteLister<V1ConfigMap> lister;
    private final Connection control;
    private final String namespace;
    final List<String> violations = new ArrayList<>();
    final Map<String, Long> awaitingDelete = new HashMap<>();
    int checked;
    int staleWithoutMinimum;
    private long seen;

    ReadYourEvents(RemoteLister<V1ConfigMap> lister, Connection control, String namespace) {
      this.lister = lister;
      this.control = control;
      this.namespace = namespace;
    }

    private Long controlVersion(String name) {
      try {
        return Long.parseLong(control.blockingStub()
            .get(GetRequest.newBuilder().setResource(CONFIGMAPS.toProto())
                .setNamespace(namespace).setName(name).build())
            .getObject().getResourceVersion());
      } catch (StatusRuntimeException e) {
        assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
        return null;
      }
    }

    private synchronized void check(V1ConfigMap event, boolean deleted) {
      try {
        checkReads(event, deleted);
      } catch (InformerdReadException e) {
        violations.add("read after event " + rv(event) + " of " + key(event) + " failed: "
            + e.getMessage());
      }
      seen = Math.max(seen, rv(event));
      notifyAll();
    }

    private void checkReads(V1ConfigMap event, boolean deleted) {
      long version = rv(event);
      Long control = controlVersion(event.getMetadata().getName());
      Map<String, V1ConfigMap> answers = new HashMap<>();
      answers.put("get", lister.namespace(namespace).get(event.getMetadata().getName()));
      if (checked % 4 == 0) {
        V1ConfigMap found = null;
        for (V1ConfigMap cm : lister.namespace(namespace).list()) {
          if (key(cm).equals(key(event))) {
            found = cm;
          }
        }
        answers.put("list", found);
      }
      for (Map.Entry<String, V1ConfigMap> answer : answers.entrySet()) {
        V1ConfigMap got = answer.getValue();
        if (deleted) {
          if (got != null && rv(got) <= version) {
            violations.add(answer.getKey() + " of " + key(event) + " at " + rv(got)
                + " after its delete at " + version);
          }
        } else if (got == null) {
          awaitingDelete.putIfAbsent(key(event), version);
        } else if (rv(got) < version) {
          violations.add(answer.getKey() + " of " + key(event) + " at " + rv(got)
              + " after event " + version);
        }
      }
      if (deleted ? control != null && control <= version : control == null || control < version) {
        staleWithoutMinimum++;
      }
      checked++;
    }

    synchronized boolean awaitVersion(long version) throws InterruptedException {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (seen < version) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        wait(left / 1_000_000 + 1);
      }
      return true;
    }

    @Override
    public void onAdd(V1ConfigMap cm) {
      check(cm, false);
    }

    @Override
    public void onUpdate(V1ConfigMap oldCm, V1ConfigMap newCm) {
      check(newCm, false);
    }

    @Override
    public synchronized void onDelete(V1ConfigMap cm, boolean finalStateUnknown) {
      awaitingDelete.remove(key(cm));
      check(cm, true);
    }
  }

  /**
   * Updates its ConfigMaps round-robin; every fifth write deletes one and
   * creates it again. Each writer has one write in flight: it goes on once
   * the oracle has checked its write's event, so that the oracle reads each
   * event while the replica still trails (a handler far behind the watch
   * would read versions the replica reached long ago).
   */
  private Thread writer(
      List<String> names, int writes, ReadYourEvents oracle, List<Throwable> errors) {
    Thread thread = new Thread(() -> {
      try {
        for (int i = 0; i < writes; i++) {
          String name = names.get(i % names.size());
          String written;
          if (i % 5 == 4) {
            api.deleteNamespacedConfigMap(name, namespace).execute();
            written = create(namespace, name, Integer.toString(i), null);
          } else {
            written = replace(name, Integer.toString(i));
          }
          if (!oracle.awaitVersion(Long.parseLong(written))) {
            throw new AssertionError("the oracle did not see version " + written);
          }
        }
      } catch (Throwable e) {
        synchronized (errors) {
          errors.add(e);
        }
      }
    });
    thread.start();
    return thread;
  }

  private void readsFollowEventsUnderWrites(int cacheSize) throws Exception {
    InformerdProcess informerd = informerd("informerd", env.kubeconfig);
    InformerdProcess replica = laggingReplica();
    List<String> names = List.of("cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5");
    for (String name : names) {
      create(namespace, name, "initial", null);
    }
    // Every chunk from the apiserver to the replica waits 0..20 ms.
    replicaProxy.setDelayMillis(20);
    Connection replicaConnection = connect(replica);
    NoCopyInformer<V1ConfigMap> informer = closeLater(
        NoCopyInformer.builder(connect(informerd), V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
            .namespace(namespace)
            .build());
    HotCache<V1ConfigMap> cache = cacheSize == 0 ? null : new HotCache<>(cacheSize, k -> {
      V1ConfigMap held = informer.metadataIndexer().getByKey(k);
      return held == null ? null : held.getMetadata().getResourceVersion();
    });
    RemoteLister<V1ConfigMap> reads = new RemoteLister<>(
        RemoteIndexer.builder(replicaConnection, V1ConfigMap.class, CONFIGMAPS)
            .versions(informer.versions())
            .cache(cache)
            .build());
    ReadYourEvents oracle = new ReadYourEvents(reads, replicaConnection, namespace);
    informer.addEventHandler(oracle);
    informer.run();
    assertTrue("synced", informer.awaitSynced(TIMEOUT));
    List<Throwable> errors = new ArrayList<>();
    List<Thread> writers = List.of(
        writer(List.of("cm-0", "cm-2", "cm-4"), 60, oracle, errors),
        writer(List.of("cm-1", "cm-3", "cm-5"), 60, oracle, errors));
    for (Thread writer : writers) {
      writer.join(TIMEOUT.toMillis());
    }
    assertEquals(List.of(), errors);
    long last = Long.parseLong(replace("cm-0", "last"));
    assertTrue("the oracle saw the last write", oracle.awaitVersion(last));
    synchronized (oracle) {
      System.out.printf(
          "read-your-events (cache %d): %d events checked, %d reads without a minimum were older"
              + " than their event%s%n",
          cacheSize, oracle.checked, oracle.staleWithoutMinimum,
          cache == null ? "" : "; cache hits " + cache.hits() + ", misses " + cache.misses());
      assertEquals(List.of(), oracle.violations);
      assertEquals(Map.of(), oracle.awaitingDelete);
      assertTrue("events checked: " + oracle.checked, oracle.checked >= 120);
      assertTrue("the replica did lag: reads without a minimum were older",
          oracle.staleWithoutMinimum > 0);
    }
  }

  @Test
  public void readsFollowEventsFromALaggingReplicaUnderWrites() throws Exception {
    readsFollowEventsUnderWrites(0);
  }

  @Test
  public void readsFollowEventsFromALaggingReplicaWithAHotCache() throws Exception {
    readsFollowEventsUnderWrites(3);
  }

  /** Every event's key and version, and a way to wait for one. */
  private static final class Events implements ResourceEventHandler<V1ConfigMap> {
    final List<V1ConfigMap> objects = new ArrayList<>();
    final Set<String> deleted = new TreeSet<>();

    private synchronized void record(V1ConfigMap cm, boolean delete) {
      objects.add(cm);
      if (delete) {
        deleted.add(key(cm));
      }
      notifyAll();
    }

    synchronized boolean await(java.util.function.BooleanSupplier done) throws InterruptedException {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!done.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        wait(left / 1_000_000 + 1);
      }
      return true;
    }

    boolean awaitVersion(String name, String version) throws InterruptedException {
      return await(() -> objects.stream().anyMatch(o -> o.getMetadata().getName().equals(name)
          && rv(o) >= Long.parseLong(version)));
    }

    boolean awaitKeys(Set<String> keys) throws InterruptedException {
      return await(() -> objects.stream().map(NoCopyE2ETest::key).collect(Collectors.toSet())
          .containsAll(keys));
    }

    boolean awaitDelete(String key) throws InterruptedException {
      return await(() -> deleted.contains(key));
    }

    synchronized List<V1ConfigMap> objects() {
      return new ArrayList<>(objects);
    }

    @Override
    public void onAdd(V1ConfigMap cm) {
      record(cm, false);
    }

    @Override
    public void onUpdate(V1ConfigMap oldCm, V1ConfigMap newCm) {
      record(newCm, false);
    }

    @Override
    public void onDelete(V1ConfigMap cm, boolean finalStateUnknown) {
      record(cm, true);
    }
  }

  @Test
  public void aLaggingReplicaAnswersLateRatherThanOlder() throws Exception {
    InformerdProcess informerd = informerd("informerd", env.kubeconfig);
    InformerdProcess replica = laggingReplica();
    String before = create(namespace, "probe", "0", null);
    NoCopyInformer<V1ConfigMap> informer = closeLater(
        NoCopyInformer.builder(connect(informerd), V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
            .namespace(namespace)
            .build());
    Events events = new Events();
    informer.addEventHandler(events);
    Connection replicaConnection = connect(replica);
    RemoteLister<V1ConfigMap> reads = new RemoteLister<>(
        RemoteIndexer.builder(replicaConnection, V1ConfigMap.class, CONFIGMAPS)
            .versions(informer.versions())
            .build()).namespace(namespace);
    informer.run();
    assertTrue(events.awaitVersion("probe", before));
    assertEquals(before, reads.get("probe").getMetadata().getResourceVersion());
    replicaProxy.setStalled(true);
    String after = replace("probe", "1");
    assertTrue(events.awaitVersion("probe", after));
    assertEquals(after, informer.versions().version());
    // Without the minimum, the replica answers older than the event.
    assertEquals(before, replicaConnection.blockingStub()
        .get(GetRequest.newBuilder().setResource(CONFIGMAPS.toProto())
            .setNamespace(namespace).setName("probe").build())
        .getObject().getResourceVersion());
    try {
      V1ConfigMap stale = reads.get("probe");
      fail("read at " + stale.getMetadata().getResourceVersion() + " after event " + after);
    } catch (InformerdReadException e) {
      assertEquals(503, e.code());
      assertEquals(after, e.minResourceVersion());
      assertTrue(e.getMessage(), e.getMessage().contains("get configmaps " + namespace + "/probe"));
    }
    replicaProxy.setStalled(false);
    V1ConfigMap got = reads.get("probe");
    assertTrue(rv(got) >= Long.parseLong(after));
    assertEquals("1", got.getData().get("value"));
  }

  @Test
  public void selectorsAndNamespacesRunInInformerdAndEventsAreMetadata() throws Exception {
    InformerdProcess informerd = informerd("informerd", env.kubeconfig);
    String other = namespace + "-b";
    createNamespace(other);
    try {
      Map<String, String> written = new HashMap<>();
      for (String ns : List.of(namespace, other)) {
        for (String[] cm : new String[][] {{"web-1", "web"}, {"web-2", "web"}, {"db-1", "db"}}) {
          written.put(ns + "/" + cm[0], create(ns, cm[0], cm[0], Map.of("app", cm[1])));
        }
      }
      NoCopyInformer<V1ConfigMap> informer = closeLater(
          NoCopyInformer.builder(connect(informerd), V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
              .labelSelector("app=web")
              .build());
      Events events = new Events();
      informer.addEventHandler(events);
      informer.run();
      Set<String> web = Set.of(namespace + "/web-1", namespace + "/web-2", other + "/web-1",
          other + "/web-2");
      assertTrue(events.awaitKeys(web));
      Set<String> seen = new TreeSet<>();
      for (V1ConfigMap cm : events.objects()) {
        // Metadata only: no data (client-java's models start with an empty map).
        assertTrue(key(cm) + " has data " + cm.getData(),
            cm.getData() == null || cm.getData().isEmpty());
        assertEquals("ConfigMap", cm.getKind());
        if (cm.getMetadata().getNamespace().startsWith(namespace)) {
          seen.add(key(cm));
        }
      }
      assertEquals(new TreeSet<>(web), seen);
      V1ConfigMap held = informer.metadataIndexer().getByKey(namespace + "/web-1");
      assertTrue(held.getData() == null || held.getData().isEmpty());
      assertEquals("web", held.getMetadata().getLabels().get("app"));
      RemoteLister<V1ConfigMap> reads = informer.lister();
      assertEquals(List.of(namespace + "/db-1"),
          keys(reads.namespace(namespace).list("app=db")));
      assertEquals(List.of(other + "/db-1", other + "/web-1", other + "/web-2"),
          keys(reads.namespace(other).list("app in (web,db)")));
      assertEquals(List.of(namespace + "/web-2"),
          keys(reads.namespace(namespace).list("app=web", "metadata.name=web-2")));
      List<V1ConfigMap> everywhere = reads.list("app=db");
      assertTrue(keys(everywhere).containsAll(List.of(namespace + "/db-1", other + "/db-1")));
      for (V1ConfigMap cm : everywhere) {
        assertEquals("db", cm.getMetadata().getLabels().get("app"));
      }
      assertEquals(List.of(other + "/db-1", other + "/web-1", other + "/web-2"),
          informer.getIndexer().indexKeys("namespace", other));
      // Reads answer whole objects, also outside the watch's selector.
      V1ConfigMap db = reads.namespace(other).get("db-1");
      assertEquals("db-1", db.getData().get("value"));
      assertEquals(written.get(other + "/db-1"), db.getMetadata().getResourceVersion());
      assertNull(reads.namespace(other).get("missing"));
      try {
        reads.list("", "data.value=x");
        fail("an unsupported field selector was accepted");
      } catch (InformerdReadException e) {
        assertEquals(400, e.code());
      }
    } finally {
      api.deleteNamespace(other).execute();
    }
  }

  private static List<String> keys(List<V1ConfigMap> objects) {
    return objects.stream().map(NoCopyE2ETest::key).collect(Collectors.toList());
  }

  @Test
  public void hotCacheEvictsAndFollowsTheWatch() throws Exception {
    InformerdProcess informerd = informerd("informerd", env.kubeconfig);
    Map<String, String> versions = new HashMap<>();
    for (String name : List.of("a", "b", "c")) {
      versions.put(name, create(namespace, name, "0", null));
    }
    NoCopyInformer<V1ConfigMap> informer = closeLater(
        NoCopyInformer.builder(connect(informerd), V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
            .namespace(namespace)
            .cacheSize(2)
            .build());
    Events events = new Events();
    informer.addEventHandler(events);
    informer.run();
    for (Map.Entry<String, String> written : versions.entrySet()) {
      assertTrue(events.awaitVersion(written.getKey(), written.getValue()));
    }
    HotCache<V1ConfigMap> cache = informer.cache();
    RemoteLister<V1ConfigMap> reads = informer.lister().namespace(namespace);
    for (String name : List.of("a", "b", "c")) {
      assertEquals(versions.get(name), reads.get(name).getMetadata().getResourceVersion());
    }
    assertEquals(List.of(namespace + "/b", namespace + "/c"), cache.keys());
    assertEquals(3, cache.misses());
    assertEquals(1, cache.evictions());
    assertEquals(versions.get("b"), reads.get("b").getMetadata().getResourceVersion());
    assertEquals(1, cache.hits());
    String updated = replace("b", "1");
    assertTrue(events.awaitVersion("b", updated));
    assertTrue(!cache.keys().contains(namespace + "/b"));
    V1ConfigMap b = reads.get("b");
    assertEquals(updated, b.getMetadata().getResourceVersion());
    assertEquals("1", b.getData().get("value"));
    assertEquals(1, cache.hits());
    assertNotNull(reads.get("c"));
    api.deleteNamespacedConfigMap("c", namespace).execute();
    assertTrue(events.awaitDelete(namespace + "/c"));
    assertNull(reads.get("c"));
    assertTrue(!cache.keys().contains(namespace + "/c"));
  }
}
