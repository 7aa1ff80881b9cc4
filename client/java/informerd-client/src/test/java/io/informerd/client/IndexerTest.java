package io.informerd.client;

import static io.informerd.client.TestObjects.object;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.Test;

public class IndexerTest {
  private static List<String> keys(List<KubeObject> objects) {
    return objects.stream().map(KubeObject::key).collect(Collectors.toList());
  }

  private final Indexer indexer =
      new Indexer(Map.of("app", object -> {
        String app = object.labels().get("app");
        return app == null ? List.of() : List.of(app);
      }));

  @Test
  public void getByNamespaceAndName() {
    indexer.put(object("ns1", "a", "1"));
    indexer.put(object("", "cluster", "2"));
    assertEquals("1", indexer.get("ns1", "a").get().resourceVersion());
    assertEquals("2", indexer.getByKey("cluster").get().resourceVersion());
    assertFalse(indexer.get("ns2", "a").isPresent());
  }

  @Test
  public void putReplacesAndReturnsOld() {
    assertFalse(indexer.put(object("ns", "a", "1")).isPresent());
    assertEquals("1", indexer.put(object("ns", "a", "2")).get().resourceVersion());
    assertEquals(1, indexer.size());
    assertEquals("2", indexer.get("ns", "a").get().resourceVersion());
  }

  @Test
  public void listIsSortedAndFiltered() {
    indexer.put(object("ns2", "b", "1", Map.of("app", "web")));
    indexer.put(object("ns1", "c", "1", Map.of("app", "db")));
    indexer.put(object("ns1", "a", "1", Map.of("app", "web")));
    assertEquals(List.of("ns1/a", "ns1/c", "ns2/b"), keys(indexer.list()));
    assertEquals(List.of("ns1/a", "ns2/b"), keys(indexer.list(LabelSelector.parse("app=web"))));
    assertEquals(List.of("ns1/a"), keys(indexer.list("ns1", LabelSelector.parse("app=web"))));
    assertEquals(List.of("ns1/a", "ns1/c", "ns2/b"), indexer.keys());
  }

  @Test
  public void indexesFollowUpdatesAndDeletes() {
    indexer.put(object("ns1", "a", "1", Map.of("app", "web")));
    indexer.put(object("ns1", "b", "1", Map.of("app", "web")));
    assertEquals(List.of("ns1/a", "ns1/b"), keys(indexer.byIndex("app", "web")));

    indexer.put(object("ns1", "a", "2", Map.of("app", "db")));
    assertEquals(List.of("ns1/b"), keys(indexer.byIndex("app", "web")));
    assertEquals(List.of("ns1/a"), keys(indexer.byIndex("app", "db")));

    assertTrue(indexer.remove("ns1/b").isPresent());
    assertEquals(List.of(), keys(indexer.byIndex("app", "web")));
    assertEquals(List.of("ns1/a"), keys(indexer.byIndex(Indexer.NAMESPACE_INDEX, "ns1")));
    assertFalse(indexer.remove("ns1/b").isPresent());
  }

  @Test
  public void unknownIndexIsAnError() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> indexer.byIndex("node", "x"));
    assertTrue(e.getMessage(), e.getMessage().contains("no index \"node\""));
  }

  @Test
  public void failingIndexFunctionIndexesNothing() {
    Indexer failing =
        new Indexer(Map.of("bad", object -> {
          throw new IllegalStateException("boom");
        }));
    failing.put(object("ns", "a", "1"));
    assertEquals(1, failing.size());
    assertEquals(List.of(), failing.byIndex("bad", "anything"));
  }

  @Test
  public void namespaceIndexNameIsReserved() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Indexer(Map.of(Indexer.NAMESPACE_INDEX, object -> List.of())));
  }
}
