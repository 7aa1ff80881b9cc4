package io.informerd.client;

import static io.informerd.client.TestObjects.event;
import static io.informerd.client.TestObjects.object;
import static org.junit.Assert.assertEquals;

import io.informerd.v1.WatchEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

public class CacheUpdaterTest {
  private final Indexer indexer = new Indexer(Map.of());
  private final RecordingHandler handler = new RecordingHandler();
  private final CacheUpdater updater = new CacheUpdater(indexer, List.of(handler));

  @Test
  public void liveEventsUpdateCacheThenHandlers() {
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "a", "1"));
    updater.applyEvent(event(WatchEvent.Type.MODIFIED, "ns", "a", "2"));
    updater.applyEvent(event(WatchEvent.Type.DELETED, "ns", "a", "3"));
    assertEquals(List.of("ADD ns/a 1", "UPDATE ns/a 1 2", "DELETE ns/a 3"), handler.drain());
    assertEquals(0, indexer.size());
  }

  @Test
  public void addedForCachedKeyIsUpdate() {
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "a", "1"));
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "a", "5"));
    assertEquals(List.of("ADD ns/a 1", "UPDATE ns/a 1 5"), handler.drain());
  }

  @Test
  public void deletedForUnknownKeyIsIgnored() {
    updater.applyEvent(event(WatchEvent.Type.DELETED, "ns", "ghost", "4"));
    assertEquals(List.of(), handler.drain());
  }

  @Test
  public void deleteCarriesFinalStateUnknown() {
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "a", "1"));
    updater.applyEvent(event(WatchEvent.Type.DELETED, "ns", "a", "1").toBuilder()
        .setFinalStateUnknown(true).build());
    assertEquals(List.of("ADD ns/a 1", "DELETE ns/a 1 final-state-unknown"), handler.drain());
  }

  @Test
  public void bookmarksChangeNothing() {
    updater.applyEvent(TestObjects.initialEventsEnd("9"));
    assertEquals(List.of(), handler.drain());
    assertEquals(0, indexer.size());
  }

  @Test
  public void relistReportsOnlyTheDifference() {
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "same", "1"));
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "changed", "1"));
    updater.applyEvent(event(WatchEvent.Type.ADDED, "ns", "gone", "1"));
    handler.drain();

    Map<String, KubeObject> listed = new LinkedHashMap<>();
    listed.put("ns/same", object("ns", "same", "1"));
    listed.put("ns/new", object("ns", "new", "7"));
    listed.put("ns/changed", object("ns", "changed", "6"));
    updater.applyRelist(listed);

    assertEquals(
        List.of("DELETE ns/gone 1 final-state-unknown", "UPDATE ns/changed 1 6", "ADD ns/new 7"),
        handler.drain());
    assertEquals(List.of("ns/changed", "ns/new", "ns/same"), indexer.keys());
  }

  @Test
  public void handlerExceptionDoesNotStopOtherHandlers() {
    RecordingHandler second = new RecordingHandler();
    CacheUpdater withFailing =
        new CacheUpdater(indexer, List.of(new EventHandler() {
          @Override
          public void onAdd(KubeObject object) {
            throw new IllegalStateException("handler bug");
          }
        }, second));
    withFailing.applyEvent(event(WatchEvent.Type.ADDED, "ns", "a", "1"));
    assertEquals(List.of("ADD ns/a 1"), second.drain());
    assertEquals(1, indexer.size());
  }
}
