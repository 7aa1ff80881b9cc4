package io.informerd.client.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.informerd.client.Connection;
import io.informerd.client.EventHandler;
import io.informerd.client.KubeObject;
import io.informerd.client.RemoteInformer;
import io.informerd.client.ResourceRef;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Runs the client against a real informerd and kube-apiserver: churns
 * ConfigMaps, restarts informerd once (with changes made while it is down),
 * and checks that both the informer's cache and the state rebuilt from its
 * handler calls converge to the apiserver's LIST.
 */
public class InformerE2ETest {
  private static final Duration CONVERGENCE_TIMEOUT = Duration.ofSeconds(60);

  @Rule public TemporaryFolder temp = new TemporaryFolder();

  /** Replays handler calls into a key -> resourceVersion map and signals each change. */
  private static final class MirroringHandler implements EventHandler {
    private final Map<String, String> mirror = new HashMap<>();
    private final Map<String, Boolean> deletedFinalStateUnknown = new HashMap<>();

    @Override
    public synchronized void onAdd(KubeObject object) {
      mirror.put(object.key(), object.resourceVersion());
      notifyAll();
    }

    @Override
    public synchronized void onUpdate(KubeObject oldObject, KubeObject newObject) {
      mirror.put(newObject.key(), newObject.resourceVersion());
      notifyAll();
    }

    @Override
    public synchronized void onDelete(KubeObject object, boolean finalStateUnknown) {
      mirror.remove(object.key());
      deletedFinalStateUnknown.put(object.key(), finalStateUnknown);
      notifyAll();
    }

    synchronized Map<String, String> mirror() {
      return new TreeMap<>(mirror);
    }

    /** Whether the delete of {@code key} had finalStateUnknown; null if none was seen. */
    synchronized Boolean deleteFinalStateUnknown(String key) {
      return deletedFinalStateUnknown.get(key);
    }

    /** Waits, re-checking after every handler call, until {@code done} holds. */
    synchronized boolean awaitCondition(Supplier<Boolean> done, Duration timeout)
        throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!done.get()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  private static Map<String, String> cacheVersions(RemoteInformer informer) {
    Map<String, String> versions = new TreeMap<>();
    for (KubeObject object : informer.lister().list()) {
      versions.put(object.key(), object.resourceVersion());
    }
    return versions;
  }

  private static void assertConverges(
      KubeApi api, String namespace, RemoteInformer informer, MirroringHandler handler)
      throws Exception {
    Map<String, String> expected = api.listConfigMaps(namespace);
    boolean converged =
        handler.awaitCondition(
            () -> expected.equals(handler.mirror()) && expected.equals(cacheVersions(informer)),
            CONVERGENCE_TIMEOUT);
    assertEquals("handler calls vs apiserver LIST", expected, handler.mirror());
    assertEquals("cache vs apiserver LIST", expected, cacheVersions(informer));
    assertTrue(converged);
  }

  @Test
  public void convergesThroughChurnAndServerRestart() throws Exception {
    E2eEnvironment env = E2eEnvironment.require();
    KubeApi api = new KubeApi(env.apiserverUrl, env.adminTokenFile, env.caFile);
    String namespace = "java-e2e-" + UUID.randomUUID().toString().substring(0, 8);
    api.createNamespace(namespace);
    try {
      convergesIn(api, env, namespace);
    } finally {
      api.deleteNamespace(namespace);
    }
  }

  private void convergesIn(KubeApi api, E2eEnvironment env, String namespace) throws Exception {
    for (int i = 0; i < 5; i++) {
      api.createConfigMap(namespace, "cm" + i, "initial");
    }

    try (InformerdProcess informerd =
        new InformerdProcess(env, temp.newFile("informerd.log"))) {
      informerd.start();
      Connection connection = Connection.builder().target(informerd.grpcAddress()).build();
      MirroringHandler handler = new MirroringHandler();
      RemoteInformer informer =
          RemoteInformer.builder(connection, ResourceRef.parse("configmaps"))
              .namespace(namespace)
              .addEventHandler(handler)
              .backoff(Duration.ofMillis(50), Duration.ofSeconds(1))
              .build();
      informer.start();
      try {
        assertTrue("informer synced", informer.awaitSynced(Duration.ofSeconds(60)));
        assertEquals(5, informer.lister().size());

        for (int round = 0; round < 3; round++) {
          api.updateConfigMap(namespace, "cm0", "round" + round);
          api.updateConfigMap(namespace, "cm1", "round" + round);
          api.createConfigMap(namespace, "live" + round, "x");
        }
        api.deleteConfigMap(namespace, "cm2");
        assertConverges(api, namespace, informer, handler);
        assertEquals(Boolean.FALSE, handler.deleteFinalStateUnknown(namespace + "/cm2"));

        informerd.stop();
        api.deleteConfigMap(namespace, "cm3");
        api.updateConfigMap(namespace, "cm4", "while-down");
        api.createConfigMap(namespace, "down", "x");
        informerd.start();

        assertConverges(api, namespace, informer, handler);
        // The restarted server's history starts after the delete, but it
        // backfills it from the apiserver: the informer resumes and learns of
        // the delete as an ordinary one, not from a relist.
        assertEquals(Boolean.FALSE, handler.deleteFinalStateUnknown(namespace + "/cm3"));

        api.updateConfigMap(namespace, "cm0", "after-restart");
        api.deleteConfigMap(namespace, "live0");
        assertConverges(api, namespace, informer, handler);
      } finally {
        informer.close();
        connection.close();
      }
    }
  }
}
