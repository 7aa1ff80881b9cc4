package io.informerd.client.examples;

import com.google.gson.Gson;
import io.informerd.client.Connection;
import io.informerd.client.Decoder;
import io.informerd.client.EventHandler;
import io.informerd.client.KubeObject;
import io.informerd.client.Lister;
import io.informerd.client.RemoteInformer;
import io.informerd.client.ResourceRef;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;

/**
 * The controller pattern on top of a {@link RemoteInformer}: handlers only
 * enqueue keys (cheap, so the watch is never held up), and a worker thread
 * reads each key's current state from the lister and acts on it. Repeated
 * changes to one key before the worker gets to it collapse into one
 * reconcile.
 *
 * <pre>
 * KeyQueueController --server ADDR [-n NS]
 * </pre>
 */
public final class KeyQueueController {
  /** The part of a ConfigMap this controller reads, decoded with Gson. */
  static final class ConfigMap {
    Map<String, String> data;
  }

  private final Decoder<ConfigMap> decoder;
  // Keys waiting for the worker, oldest first, each at most once.
  private final LinkedHashSet<String> queue = new LinkedHashSet<>();

  KeyQueueController() {
    Gson gson = new Gson();
    this.decoder =
        Decoder.of(json -> gson.fromJson(new String(json, StandardCharsets.UTF_8), ConfigMap.class));
  }

  /** Handlers that only enqueue the changed object's key. */
  EventHandler enqueueingHandler() {
    return new EventHandler() {
      @Override
      public void onAdd(KubeObject object) {
        enqueue(object.key());
      }

      @Override
      public void onUpdate(KubeObject oldObject, KubeObject newObject) {
        enqueue(newObject.key());
      }

      @Override
      public void onDelete(KubeObject object, boolean finalStateUnknown) {
        enqueue(object.key());
      }
    };
  }

  private synchronized void enqueue(String key) {
    queue.add(key);
    notifyAll();
  }

  private synchronized String take() throws InterruptedException {
    while (queue.isEmpty()) {
      wait();
    }
    String key = queue.iterator().next();
    queue.remove(key);
    return key;
  }

  /** Reconciles keys against {@code lister} until interrupted. */
  void runWorker(Lister lister) {
    try {
      while (true) {
        reconcile(lister, take());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void reconcile(Lister lister, String key) {
    Optional<KubeObject> current = lister.getByKey(key);
    if (current.isEmpty()) {
      System.err.println("reconcile " + key + ": gone");
      return;
    }
    ConfigMap configMap = decoder.decode(current.get());
    int keys = configMap.data == null ? 0 : configMap.data.size();
    System.err.println("reconcile " + key + ": " + keys + " data keys");
  }

  public static void main(String[] args) throws InterruptedException {
    String server = "127.0.0.1:50051";
    String namespace = "";
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--server")) {
        server = args[i + 1];
      } else if (args[i].equals("-n")) {
        namespace = args[i + 1];
      }
    }
    Connection connection = Connection.builder().target(server).build();
    KeyQueueController controller = new KeyQueueController();
    RemoteInformer informer =
        RemoteInformer.builder(connection, ResourceRef.parse("configmaps"))
            .namespace(namespace)
            .addEventHandler(controller.enqueueingHandler())
            .build();
    informer.start();
    if (!informer.awaitSynced(Duration.ofMinutes(1))) {
      System.err.println("not synced after a minute; still trying");
    }
    controller.runWorker(informer.lister());
  }
}
