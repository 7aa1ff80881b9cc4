package io.informerd.client;

import static io.informerd.client.TestObjects.object;
import static org.junit.Assert.assertEquals;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.Test;

public class RelistDiffTest {
  private static List<String> describe(List<CacheChange> changes) {
    return changes.stream().map(CacheChange::toString).collect(Collectors.toList());
  }

  @Test
  public void identicalStatesHaveNoChanges() {
    Map<String, KubeObject> state = Map.of("ns/a", object("ns", "a", "1"));
    assertEquals(List.of(), RelistDiff.compute(state, state));
  }

  @Test
  public void emptyCacheGetsAddsInKeyOrder() {
    assertEquals(
        List.of("ADD ns/a 2", "ADD ns/b 1"),
        describe(RelistDiff.compute(
            Map.of(), Map.of("ns/b", object("ns", "b", "1"), "ns/a", object("ns", "a", "2")))));
  }

  @Test
  public void missingObjectsAreDeletedWithFinalStateUnknown() {
    List<CacheChange> changes =
        RelistDiff.compute(Map.of("ns/a", object("ns", "a", "1")), Map.of());
    assertEquals(List.of("DELETE ns/a 1 final-state-unknown"), describe(changes));
  }

  @Test
  public void recreatedObjectIsDeleteThenAdd() {
    KubeObject old = object("ns", "a", "1");
    KubeObject recreated =
        new KubeObject("ns", "a", "other-uid", "5", Map.of(), ByteString.EMPTY);
    assertEquals(
        List.of("DELETE ns/a 1 final-state-unknown", "ADD ns/a 5"),
        describe(RelistDiff.compute(Map.of("ns/a", old), Map.of("ns/a", recreated))));
  }

  @Test
  public void changedVersionIsUpdate() {
    assertEquals(
        List.of("UPDATE ns/a 1 3"),
        describe(RelistDiff.compute(
            Map.of("ns/a", object("ns", "a", "1")), Map.of("ns/a", object("ns", "a", "3")))));
  }
}
