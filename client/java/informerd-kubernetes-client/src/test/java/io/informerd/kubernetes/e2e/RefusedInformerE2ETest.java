package io.informerd.kubernetes.e2e;

import static org.junit.Assert.assertTrue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.informerd.client.ResourceRef;
import io.informerd.client.e2e.E2eEnvironment;
import io.informerd.client.e2e.InformerdProcess;
import io.informerd.kubernetes.InformerdInformers;
import io.informerd.kubernetes.InformerdListerWatcher;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.Config;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A client-java informer that informerd refuses backs off, as a refused
 * client-go informer does: a real informerd allows each caller one Watch
 * ({@code limits.maxWatchesPerIdentity: 1}), the test holds it, and the
 * informer's Watches are refused (RESOURCE_EXHAUSTED before any event) while
 * its Lists succeed. client-java's reflector starts a new list-and-watch one
 * second after each failure; without a backoff that is a List a second. The
 * List calls are counted on the informer's channel during 10 s of refusal.
 */
public class RefusedInformerE2ETest {
  private static final ResourceRef CONFIGMAPS = new ResourceRef("", "v1", "configmaps");
  /** The measurement: how long the informer is refused. */
  private static final Duration REFUSED_FOR = Duration.ofSeconds(10);
  /**
   * The Lists the informer may make in those 10 s. Each refused round
   * doubles the wait before the next List, from 0.8 s (RefusalBackoff, at
   * least that, up to twice it at random): Lists 1 to 4 start at the
   * earliest after 0, 0.8, 2.4 and 5.6 s of backoff (plus client-java's 1 s
   * between rounds); a fifth needs 12 s of backoff alone. A slow machine
   * only makes fewer. Without the backoff: about one a second (10 or 11).
   */
  private static final int MAX_LISTS = 4;

  @Rule public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void refusedInformerBacksOffItsListsAndRecovers() throws Exception {
    E2eEnvironment env = E2eEnvironment.require();
    ApiClient apiClient = Config.fromConfig(env.kubeconfig.toString());
    CoreV1Api api = new CoreV1Api(apiClient);
    String namespace = "java-refused-" + UUID.randomUUID().toString().substring(0, 8);
    api.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(namespace))).execute();
    File config = temp.newFile("informerd.yaml");
    Files.write(config.toPath(),
        "limits:\n  maxWatchesPerIdentity: 1\n".getBytes(StandardCharsets.UTF_8));
    AtomicInteger lists = new AtomicInteger();
    AtomicInteger watches = new AtomicInteger();
    ClientInterceptor counter =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            if (method.getBareMethodName().equals("List")) {
              lists.incrementAndGet();
            } else if (method.getBareMethodName().equals("Watch")) {
              watches.incrementAndGet();
            }
            return next.newCall(method, options);
          }
        };
    SharedInformerFactory factory = new SharedInformerFactory(apiClient);
    ManagedChannel holderChannel = null;
    ManagedChannel channel = null;
    Context.CancellableContext held = Context.current().withCancellation();
    try (InformerdProcess informerd = new InformerdProcess(
        env, temp.newFile("informerd.log"), List.of("--config=" + config))) {
      informerd.start();
      // The caller's one Watch, held open: once its initial events have
      // ended, informerd counts it.
      holderChannel =
          ManagedChannelBuilder.forTarget(informerd.grpcAddress()).usePlaintext().build();
      CacheGrpc.CacheBlockingStub holderStub = CacheGrpc.newBlockingStub(holderChannel);
      WatchRequest hold =
          WatchRequest.newBuilder()
              .setResource(CONFIGMAPS.toProto())
              .setNamespace(namespace)
              .setSendInitialEvents(true)
              .setAllowBookmarks(true)
              .build();
      Context previous = held.attach();
      Iterator<WatchEvent> holding;
      try {
        holding = holderStub.watch(hold);
      } finally {
        held.detach(previous);
      }
      while (!holding.next().getInitialEventsEnd()) {
        // Initial events of an empty namespace: just the bookmark.
      }

      channel =
          ManagedChannelBuilder.forTarget(informerd.grpcAddress())
              .usePlaintext()
              .intercept(counter)
              .build();
      SharedIndexInformer<V1ConfigMap> informer =
          InformerdInformers.sharedIndexInformerFor(
              factory,
              InformerdListerWatcher.builder(
                      channel, null, V1ConfigMap.class, V1ConfigMapList.class, CONFIGMAPS)
                  .namespace(namespace)
                  .build(),
              V1ConfigMap.class,
              0);
      Lister<V1ConfigMap> lister = new Lister<>(informer.getIndexer(), namespace);
      factory.startAllRegisteredInformers();
      Thread.sleep(REFUSED_FOR.toMillis()); // the measurement window, not a synchronisation
      int listed = lists.get();
      int watched = watches.get();
      System.out.printf(
          "refused informer: %d Lists and %d Watches in %d s%n",
          listed, watched, REFUSED_FOR.getSeconds());
      assertTrue("the informer's Watch was tried (and refused): " + watched, watched >= 1);
      assertTrue(
          "a refused informer listed " + listed + " times in " + REFUSED_FOR.getSeconds()
              + " s; want at most " + MAX_LISTS + " (backing off)",
          listed <= MAX_LISTS);

      // The refusal ends: the informer is served again after its backoff
      // (at most 2 x 6.4 s after four refusals, plus a round).
      held.cancel(null);
      api.createNamespacedConfigMap(
              namespace,
              new V1ConfigMap().metadata(new V1ObjectMeta().namespace(namespace).name("after")))
          .execute();
      Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
      while (lister.get("after") == null && Instant.now().isBefore(deadline)) {
        Thread.sleep(50); // polling a condition with a deadline
      }
      assertTrue("the informer is served again once the refusal ends", lister.get("after") != null);
    } finally {
      held.cancel(null);
      factory.stopAllRegisteredInformers();
      for (ManagedChannel c : new ManagedChannel[] {channel, holderChannel}) {
        if (c != null) {
          c.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
      }
      api.deleteNamespace(namespace).execute();
    }
  }
}
