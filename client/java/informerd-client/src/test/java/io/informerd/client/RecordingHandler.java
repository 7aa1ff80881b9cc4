package io.informerd.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Records handler calls as the example program's lines ("ADD ns/name rv",
 * ...), so tests can wait for and compare them.
 */
final class RecordingHandler implements EventHandler {
  private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

  @Override
  public void onAdd(KubeObject object) {
    calls.add("ADD " + object.key() + " " + object.resourceVersion());
  }

  @Override
  public void onUpdate(KubeObject oldObject, KubeObject newObject) {
    calls.add("UPDATE " + newObject.key() + " " + oldObject.resourceVersion() + " "
        + newObject.resourceVersion());
  }

  @Override
  public void onDelete(KubeObject object, boolean finalStateUnknown) {
    calls.add("DELETE " + object.key() + " " + object.resourceVersion()
        + (finalStateUnknown ? " final-state-unknown" : ""));
  }

  @Override
  public void onSynced() {
    calls.add("SYNCED");
  }

  /** Waits (up to 10s each) for the next {@code count} calls. */
  List<String> next(int count) throws InterruptedException {
    List<String> result = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String call = calls.poll(10, TimeUnit.SECONDS);
      if (call == null) {
        throw new AssertionError("timed out waiting for handler call; got " + result);
      }
      result.add(call);
    }
    return result;
  }

  /** Everything recorded and not yet taken. */
  List<String> drain() {
    List<String> result = new ArrayList<>();
    calls.drainTo(result);
    return result;
  }
}
