package io.informerd.kubernetes.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.informerd.client.ResourceRef;
import io.informerd.client.e2e.E2eEnvironment;
import io.informerd.client.e2e.InformerdProcess;
import io.informerd.kubernetes.HandlerRegistration;
import io.informerd.kubernetes.InformerKey;
import io.informerd.kubernetes.InformerOptions;
import io.informerd.kubernetes.InformerdSharedIndexInformer;
import io.informerd.kubernetes.InformerdSharedInformerFactory;
import io.informerd.kubernetes.SyncAwareEventHandler;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.ResourceName;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.Config;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.After;
import org.junit.AfterClass;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@link InformerdSharedInformerFactory} against a real informerd serving
 * ConfigMaps from the real apiserver: sharing, start, sync report, stop
 * waiting for handlers, late handlers, per-handler delivery and resync,
 * indexers, transforms, dynamic objects. informerd's List and Watch calls
 * are counted on the test's channel.
 */
public class SharedInformerFactoryE2ETest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final ResourceRef CONFIGMAPS = new ResourceRef("", "v1", "configmaps");

  @ClassRule public static TemporaryFolder temp = new TemporaryFolder();

  private static InformerdProcess informerd;
  private static CoreV1Api api;

  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private ManagedChannel channel;
  private InformerdSharedInformerFactory factory;
  private String namespace;

  @BeforeClass
  public static void startInformerd() throws Exception {
    E2eEnvironment env = E2eEnvironment.require();
    ApiClient apiClient = Config.fromConfig(env.kubeconfig.toString());
    api = new CoreV1Api(apiClient);
    informerd = new InformerdProcess(env, temp.newFile("informerd.log"));
    informerd.start();
  }

  @AfterClass
  public static void stopInformerd() throws Exception {
    if (informerd != null) {
      informerd.close();
    }
  }

  @Before
  public void setUp() throws Exception {
    namespace = "java-factory-" + UUID.randomUUID().toString().substring(0, 8);
    api.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(namespace))).execute();
    ClientInterceptor counter =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            calls.computeIfAbsent(method.getBareMethodName(), k -> new AtomicInteger()).incrementAndGet();
            return next.newCall(method, options);
          }
        };
    channel =
        ManagedChannelBuilder.forTarget(informerd.grpcAddress()).usePlaintext().intercept(counter).build();
    factory = InformerdSharedInformerFactory.builder(channel, null).namespace(namespace).build();
  }

  @After
  public void tearDown() throws Exception {
    if (factory != null) {
      factory.close();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    api.deleteNamespace(namespace).execute();
  }

  private int calls(String method) {
    AtomicInteger n = calls.get(method);
    return n == null ? 0 : n.get();
  }

  private V1ConfigMap create(String name, String value) throws Exception {
    return api.createNamespacedConfigMap(
            namespace,
            new V1ConfigMap()
                .metadata(new V1ObjectMeta().namespace(namespace).name(name))
                .putDataItem("value", value))
        .execute();
  }

  private V1ConfigMap update(String name, String value) throws Exception {
    V1ConfigMap cm = api.readNamespacedConfigMap(name, namespace).execute();
    return api.replaceNamespacedConfigMap(name, namespace, cm.putDataItem("value", value)).execute();
  }

  private Map<String, String> apiserverState() throws Exception {
    return versions(api.listNamespacedConfigMap(namespace).execute().getItems());
  }

  private static String key(V1ConfigMap cm) {
    return cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName();
  }

  private static String rv(V1ConfigMap cm) {
    return cm.getMetadata().getResourceVersion();
  }

  private static Map<String, String> versions(Iterable<V1ConfigMap> items) {
    Map<String, String> out = new TreeMap<>();
    for (V1ConfigMap cm : items) {
      out.put(key(cm), rv(cm));
    }
    return out;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!condition.getAsBoolean()) {
      assertTrue("timed out waiting for " + what, Instant.now().isBefore(deadline));
      Thread.sleep(10); // polling a condition with a deadline
    }
  }

  /** Every call one handler got, in order, as lines; replays them into a key -> rv map. */
  private static class Recorder implements SyncAwareEventHandler<V1ConfigMap> {
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    final Map<String, String> state = new ConcurrentHashMap<>();
    final List<String> problems = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onAdd(V1ConfigMap cm) {
      if (state.put(key(cm), rv(cm)) != null) {
        problems.add("duplicate ADD " + key(cm));
      }
      lines.add("ADD " + key(cm) + " " + rv(cm));
    }

    @Override
    public void onUpdate(V1ConfigMap oldCm, V1ConfigMap newCm) {
      String last = state.put(key(newCm), rv(newCm));
      if (!rv(oldCm).equals(last)) {
        problems.add("UPDATE " + key(newCm) + " old " + rv(oldCm) + " but last seen " + last);
      }
      lines.add("UPDATE " + key(newCm) + " " + rv(oldCm) + " " + rv(newCm));
    }

    @Override
    public void onDelete(V1ConfigMap cm, boolean finalStateUnknown) {
      if (state.remove(key(cm)) == null) {
        problems.add("DELETE of unknown " + key(cm));
      }
      lines.add("DELETE " + key(cm) + " " + rv(cm));
    }

    @Override
    public void onSynced() {
      lines.add("SYNCED");
    }

    List<String> snapshot() {
      synchronized (lines) {
        return new ArrayList<>(lines);
      }
    }

    Map<String, String> state() {
      return new TreeMap<>(state);
    }
  }

  private InformerdSharedIndexInformer<V1ConfigMap> configMaps() {
    return factory.sharedIndexInformerFor(V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS);
  }

  @Test
  public void informersAreSharedPerKeyWithOneListAndWatchEach() throws Exception {
    create("a", "1");
    InformerdSharedIndexInformer<V1ConfigMap> first = configMaps();
    assertSame("same key, same informer", first, configMaps());
    assertSame(
        "client-java's call-generator overload maps to the same key",
        first,
        factory.sharedIndexInformerFor(
            params ->
                api.listNamespacedConfigMap(namespace)
                    .resourceVersion(params.resourceVersion)
                    .watch(params.watch)
                    .buildCall(null),
            V1ConfigMap.class,
            V1ConfigMapList.class));
    assertSame(first, factory.getExistingSharedIndexInformer(V1ConfigMap.class));
    InformerdSharedIndexInformer<V1ConfigMap> selected =
        factory.informerFor(
            InformerOptions.of(V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
                .labelSelector("app=x"));
    assertNotSame("another selector, another informer", first, selected);

    Recorder r1 = new Recorder();
    Recorder r2 = new Recorder();
    first.addEventHandler(r1);
    configMaps().addEventHandler(r2);
    factory.startAllRegisteredInformers();
    Map<InformerKey, Boolean> synced = factory.waitForCacheSync(TIMEOUT);
    assertEquals(2, synced.size());
    assertTrue(synced.values().stream().allMatch(b -> b));
    await("both handlers got a", () -> r1.state().size() == 1 && r2.state().size() == 1);
    assertEquals("one List per informer", 2, calls("List"));
    assertEquals("one Watch per informer", 2, calls("Watch"));
  }

  @Test
  public void startStartsOnlyInformersNotStartedAndSyncReportsEach() throws Exception {
    create("a", "1");
    configMaps();
    factory.startAllRegisteredInformers();
    assertEquals(List.of(true), new ArrayList<>(factory.waitForCacheSync(TIMEOUT).values()));
    assertEquals(1, calls("List"));

    InformerdSharedIndexInformer<DynamicKubernetesObject> dynamic =
        factory.dynamicInformerFor(CONFIGMAPS);
    // informerd here serves only configmaps: this one never syncs.
    InformerdSharedIndexInformer<DynamicKubernetesObject> unserved =
        factory.dynamicInformerFor(new ResourceRef("", "v1", "secrets"));
    assertFalse(dynamic.hasSynced());
    factory.startAllRegisteredInformers();
    await("dynamic informer synced", dynamic::hasSynced);
    Map<InformerKey, Boolean> report = factory.waitForCacheSync(Duration.ofSeconds(2));
    assertEquals(3, report.size());
    assertEquals(List.of(true, true, false), new ArrayList<>(report.values()));
    assertEquals(
        "V1ConfigMap configmaps.v1 ns=" + namespace, report.keySet().iterator().next().toString());
    assertFalse(unserved.hasSynced());
    await("the unserved informer tried to list", () -> calls("List") >= 3);
    assertEquals("the first informer was not started again", 2, calls("Watch"));
    DynamicKubernetesObject a = dynamic.getIndexer().getByKey(namespace + "/a");
    assertEquals("1", a.getRaw().getAsJsonObject("data").get("value").getAsString());
    assertEquals("ConfigMap", a.getKind());
  }

  @Test
  public void closeWaitsForARunningHandlerAndNothingRunsAfter() throws Exception {
    create("a", "1");
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean handlerReturned = new AtomicBoolean();
    AtomicInteger callsAfterClose = new AtomicInteger();
    AtomicBoolean closed = new AtomicBoolean();
    configMaps()
        .addEventHandler(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(V1ConfigMap cm) {
                if (closed.get()) {
                  callsAfterClose.incrementAndGet();
                }
                inHandler.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  throw new AssertionError("close interrupted the handler");
                }
                handlerReturned.set(true);
              }

              @Override
              public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
                if (closed.get()) {
                  callsAfterClose.incrementAndGet();
                }
              }

              @Override
              public void onDelete(V1ConfigMap cm, boolean unknown) {}
            });
    factory.startAllRegisteredInformers();
    assertTrue(inHandler.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    CountDownLatch closeReturned = new CountDownLatch(1);
    Thread closer =
        new Thread(
            () -> {
              factory.close();
              closed.set(true);
              closeReturned.countDown();
            });
    closer.start();
    assertFalse(
        "close returned while a handler was running",
        closeReturned.await(500, TimeUnit.MILLISECONDS));
    release.countDown();
    assertTrue(closeReturned.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    assertTrue("the handler's call had returned when close did", handlerReturned.get());
    update("a", "2");
    create("b", "1");
    // An informer that were still running would get these within the timeout.
    Instant deadline = Instant.now().plus(Duration.ofSeconds(1));
    while (Instant.now().isBefore(deadline)) {
      assertEquals(0, callsAfterClose.get());
      Thread.sleep(50); // watching for a call that must not come
    }
    assertThrows(IllegalStateException.class, this::configMaps);
  }

  @Test
  public void lateHandlerGetsTheCacheAsAddsThenLiveEventsInOrder() throws Exception {
    for (int i = 0; i < 20; i++) {
      create("cm" + i, "0");
    }
    InformerdSharedIndexInformer<V1ConfigMap> informer = configMaps();
    Recorder early = new Recorder();
    HandlerRegistration earlyRegistration = informer.addEventHandlerWithRegistration(early);
    factory.startAllRegisteredInformers();
    assertTrue(factory.waitForCacheSync(TIMEOUT).values().iterator().next());
    assertTrue(earlyRegistration.awaitSynced(TIMEOUT));

    // Churn while the late handler joins.
    AtomicBoolean stop = new AtomicBoolean();
    List<Exception> churnErrors = Collections.synchronizedList(new ArrayList<>());
    Thread churn =
        new Thread(
            () -> {
              try {
                for (int round = 1; !stop.get() && round < 200; round++) {
                  update("cm" + (round % 20), "r" + round);
                  if (round % 7 == 0) {
                    create("new" + round, "x");
                  }
                  if (round % 11 == 0) {
                    api.deleteNamespacedConfigMap("cm" + (round % 20), namespace).execute();
                    create("cm" + (round % 20), "again");
                  }
                }
              } catch (Exception e) {
                churnErrors.add(e);
              }
            });
    churn.start();
    await("churn under way", () -> early.snapshot().size() > 25);
    Recorder late = new Recorder();
    HandlerRegistration lateRegistration = informer.addEventHandlerWithRegistration(late);
    assertTrue(lateRegistration.awaitSynced(TIMEOUT));
    stop.set(true);
    churn.join();
    assertEquals(List.of(), churnErrors);

    List<String> lines = late.snapshot();
    int synced = lines.indexOf("SYNCED");
    assertTrue("SYNCED delivered", synced > 0);
    Set<String> addedBeforeSync = new HashSet<>();
    for (String line : lines.subList(0, synced)) {
      assertTrue("only ADDs before SYNCED: " + line, line.startsWith("ADD "));
      addedBeforeSync.add(line.split(" ")[1]);
    }
    assertTrue("at least the 20 initial objects", addedBeforeSync.size() >= 20);
    Map<String, String> expected = apiserverState();
    await("late handler converges", () -> expected.equals(late.state()));
    await("early handler converges", () -> expected.equals(early.state()));
    assertEquals(List.of(), late.problems);
    assertEquals(List.of(), early.problems);
    assertEquals(1, Collections.frequency(lines, "SYNCED"));
    assertEquals(expected, versions(informer.getIndexer().list()));
  }

  @Test
  public void slowHandlerDoesNotDelayAnother() throws Exception {
    create("a", "0");
    InformerdSharedIndexInformer<V1ConfigMap> informer = configMaps();
    AtomicInteger slowCalls = new AtomicInteger();
    ResourceEventHandler<V1ConfigMap> slow =
        new ResourceEventHandler<>() {
          private void sleep() {
            slowCalls.incrementAndGet();
            try {
              Thread.sleep(1000); // the slow handler under test
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public void onAdd(V1ConfigMap cm) {
            sleep();
          }

          @Override
          public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
            sleep();
          }

          @Override
          public void onDelete(V1ConfigMap cm, boolean unknown) {
            sleep();
          }
        };
    Map<String, Long> fastArrival = new ConcurrentHashMap<>();
    ResourceEventHandler<V1ConfigMap> fast =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(V1ConfigMap cm) {
            fastArrival.put(rv(cm), System.nanoTime());
          }

          @Override
          public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
            fastArrival.put(rv(n), System.nanoTime());
          }

          @Override
          public void onDelete(V1ConfigMap cm, boolean unknown) {}
        };
    HandlerRegistration slowRegistration = informer.addEventHandlerWithRegistration(slow);
    informer.addEventHandler(fast);
    factory.startAllRegisteredInformers();
    factory.waitForCacheSync(TIMEOUT);

    // When informerd sends each event: a Watch of our own, on the same channel.
    Map<String, Long> sent = new ConcurrentHashMap<>();
    io.grpc.Context.CancellableContext watchContext = io.grpc.Context.current().withCancellation();
    Thread watcher =
        new Thread(
            () ->
                watchContext.run(
                    () -> {
                      try {
                        Iterator<WatchEvent> events =
                            CacheGrpc.newBlockingStub(channel)
                                .watch(
                                    WatchRequest.newBuilder()
                                        .setResource(
                                            ResourceName.newBuilder().setVersion("v1").setResource("configmaps"))
                                        .setNamespace(namespace)
                                        .build());
                        while (events.hasNext()) {
                          sent.put(events.next().getResourceVersion(), System.nanoTime());
                        }
                      } catch (RuntimeException cancelled) {
                        // The test cancels the watch at its end.
                      }
                    }));
    watcher.start();
    // The test's watch starts "from now" once informerd has registered it,
    // which the client cannot see: probe until it gets an event.
    Instant probeDeadline = Instant.now().plus(TIMEOUT);
    for (int probe = 0; sent.isEmpty(); probe++) {
      assertTrue("own watch established", Instant.now().isBefore(probeDeadline));
      update("a", "probe" + probe);
      Instant next = Instant.now().plus(Duration.ofMillis(200));
      while (sent.isEmpty() && Instant.now().isBefore(next)) {
        Thread.sleep(10); // polling a condition with a deadline
      }
    }

    List<String> measured = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      measured.add(rv(update("a", "v" + i)));
    }
    await("fast handler got every event", () -> fastArrival.keySet().containsAll(measured));
    await("own watch got every event", () -> sent.keySet().containsAll(measured));
    watchContext.cancel(null);
    List<Long> lags = new ArrayList<>();
    for (String rv : measured) {
      lags.add(TimeUnit.NANOSECONDS.toMillis(fastArrival.get(rv) - sent.get(rv)));
    }
    assertTrue("fast handler's lags behind informerd's stream (ms): " + lags,
        lags.stream().allMatch(lag -> lag < 50));
    assertTrue("the slow handler is still behind", slowRegistration.pending() >= 1);
    assertTrue("the slow handler ran", slowCalls.get() >= 1);
  }

  @Test
  public void eachHandlerResyncsAtItsOwnPeriodFromTheCache() throws Exception {
    create("a", "0");
    create("b", "0");
    InformerdSharedIndexInformer<V1ConfigMap> informer = configMaps();
    ConcurrentHashMap<String, AtomicInteger> resyncs = new ConcurrentHashMap<>();
    Function<String, ResourceEventHandler<V1ConfigMap>> counting =
        name ->
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(V1ConfigMap cm) {}

              @Override
              public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
                if (rv(o).equals(rv(n))) {
                  resyncs.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                }
              }

              @Override
              public void onDelete(V1ConfigMap cm, boolean unknown) {}
            };
    informer.addEventHandlerWithRegistration(counting.apply("every1s"), Duration.ofSeconds(1));
    informer.addEventHandlerWithRegistration(counting.apply("every5s"), Duration.ofSeconds(5));
    informer.addEventHandlerWithRegistration(counting.apply("never"), Duration.ZERO);
    factory.startAllRegisteredInformers();
    factory.waitForCacheSync(TIMEOUT);
    await("the informer watches", () -> calls("Watch") == 1);
    int lists = calls("List");
    int watches = calls("Watch");
    Function<String, Integer> count = name -> resyncs.getOrDefault(name, new AtomicInteger()).get();
    // Two objects per round. Rounds are counted between the 5 s handler's
    // first and second, so a slow start does not matter.
    await("a round of the 5 s handler", () -> count.apply("every5s") >= 2);
    int atFirst = count.apply("every1s");
    await("two rounds of the 5 s handler", () -> count.apply("every5s") >= 4);
    int atSecond = count.apply("every1s");
    assertTrue("1 s handler rounds in 5 s: " + (atSecond - atFirst) / 2,
        atSecond - atFirst >= 6 && atSecond - atFirst <= 14);
    assertEquals(0, (int) count.apply("never"));
    assertEquals("resync is not a List", lists, calls("List"));
    assertEquals("nor a new Watch", watches, calls("Watch"));
  }

  @Test
  public void indexersAndTransform() throws Exception {
    TransformFunc dropData =
        object -> {
          V1ConfigMap cm = (V1ConfigMap) object;
          return new V1ConfigMap()
              .apiVersion(cm.getApiVersion())
              .kind(cm.getKind())
              .metadata(cm.getMetadata().putLabelsItem("transformed", "yes"));
        };
    Function<V1ConfigMap, List<String>> byOwner =
        cm -> List.of(cm.getMetadata().getName().substring(0, 1));
    create("a1", "1");
    create("a2", "1");
    create("b1", "1");
    InformerdSharedIndexInformer<V1ConfigMap> informer =
        factory.informerFor(
            InformerOptions.of(V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
                .transform(dropData)
                .indexers(Map.of("first-letter", byOwner)));
    assertSame(
        "same transform and indexer: same informer",
        informer,
        factory.informerFor(
            InformerOptions.of(V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
                .transform(dropData)
                .indexers(Map.of("first-letter", byOwner))));
    assertNotSame("without the transform: another informer", informer, configMaps());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            factory.informerFor(
                InformerOptions.of(V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
                    .transform(dropData)
                    .indexers(Map.<String, Function<V1ConfigMap, List<String>>>of(
                        "first-letter", cm -> List.of("x")))));
    Recorder recorder = new Recorder();
    List<V1ConfigMap> handed = Collections.synchronizedList(new ArrayList<>());
    informer.addEventHandler(recorder);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(V1ConfigMap cm) {
            handed.add(cm);
          }

          @Override
          public void onUpdate(V1ConfigMap o, V1ConfigMap n) {
            handed.add(n);
          }

          @Override
          public void onDelete(V1ConfigMap cm, boolean unknown) {}
        });
    factory.startAllRegisteredInformers();
    factory.waitForCacheSync(TIMEOUT);
    assertEquals(Set.of("a1", "a2"), names(informer.getIndexer().byIndex("first-letter", "a")));
    assertEquals(List.of(namespace + "/b1"), informer.getIndexer().indexKeys("first-letter", "b"));
    api.deleteNamespacedConfigMap("a1", namespace).execute();
    create("b2", "1");
    await("index follows", () ->
        names(informer.getIndexer().byIndex("first-letter", "b")).equals(Set.of("b1", "b2")));
    assertEquals(Set.of("a2"), names(informer.getIndexer().byIndex("first-letter", "a")));
    for (V1ConfigMap cm : informer.getIndexer().list()) {
      assertTrue("stored transformed", cm.getData() == null || cm.getData().isEmpty());
      assertEquals("yes", cm.getMetadata().getLabels().get("transformed"));
    }
    await("handlers got b2", () -> handed.size() >= 4);
    for (V1ConfigMap cm : new ArrayList<>(handed)) {
      assertTrue("handed transformed", cm.getData() == null || cm.getData().isEmpty());
    }
    assertThrows(IllegalStateException.class, () -> informer.setTransform(dropData));
    assertThrows(IllegalStateException.class, () -> informer.addIndexers(Map.of("other", byOwner)));
  }

  private static Set<String> names(List<V1ConfigMap> items) {
    Set<String> out = new HashSet<>();
    for (V1ConfigMap cm : items) {
      out.add(cm.getMetadata().getName());
    }
    return out;
  }

  @Test
  public void handlerCanBeRemoved() throws Exception {
    create("a", "1");
    InformerdSharedIndexInformer<V1ConfigMap> informer = configMaps();
    Recorder kept = new Recorder();
    Recorder removed = new Recorder();
    informer.addEventHandler(kept);
    HandlerRegistration registration = informer.addEventHandlerWithRegistration(removed);
    factory.startAllRegisteredInformers();
    assertTrue(registration.awaitSynced(TIMEOUT));
    registration.remove();
    String rv = rv(update("a", "2"));
    await("the kept handler got the update", () -> rv.equals(kept.state().get(namespace + "/a")));
    assertEquals(List.of("ADD " + namespace + "/a " + removed.state().get(namespace + "/a"), "SYNCED"),
        removed.snapshot());
  }
}
