package io.informerd.client;

import static org.junit.Assert.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.Test;

/**
 * The shared conformance vectors (tests/conformance/): label selectors with
 * the apiserver's verdicts, and relist diffs. The Java client has no field
 * selectors (informerd evaluates them), so only the label vectors apply.
 */
public class ConformanceTest {
  private static JsonObject load(String name) throws IOException {
    // Maven runs the tests in the module's directory, client/java/informerd-client.
    Path path = Paths.get("..", "..", "..", "tests", "conformance", name);
    return JsonParser.parseString(Files.readString(path, StandardCharsets.UTF_8)).getAsJsonObject();
  }

  private static Map<String, String> labels(JsonObject object) {
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, JsonElement> e : object.getAsJsonObject("labels").entrySet()) {
      out.put(e.getKey(), e.getValue().getAsString());
    }
    return out;
  }

  private static List<String> strings(JsonArray array) {
    List<String> out = new ArrayList<>();
    array.forEach(e -> out.add(e.getAsString()));
    return out;
  }

  @Test
  public void labelSelectorVectors() throws IOException {
    JsonObject vectors = load("selectors.json");
    JsonArray objects = vectors.getAsJsonArray("objects");
    List<String> failures = new ArrayList<>();
    JsonArray cases = vectors.getAsJsonArray("label_selectors");
    for (JsonElement element : cases) {
      JsonObject c = element.getAsJsonObject();
      String text = c.get("selector").getAsString();
      boolean valid = c.get("valid").getAsBoolean();
      LabelSelector selector;
      try {
        selector = LabelSelector.parse(text);
      } catch (IllegalArgumentException e) {
        if (valid) {
          failures.add("rejects \"" + text + "\", which the apiserver accepts: " + e.getMessage());
        }
        continue;
      }
      if (!valid) {
        failures.add("accepts \"" + text + "\", which the apiserver rejects");
        continue;
      }
      List<String> matches = new ArrayList<>();
      for (JsonElement o : objects) {
        if (selector.matches(labels(o.getAsJsonObject()))) {
          matches.add(o.getAsJsonObject().get("name").getAsString());
        }
      }
      matches.sort(null);
      List<String> want = strings(c.getAsJsonArray("matches"));
      if (!matches.equals(want)) {
        failures.add("\"" + text + "\" selects " + matches + ", the apiserver " + want);
      }
    }
    assertTrue(failures.size() + " of " + cases.size() + " label selector vectors fail:\n"
        + String.join("\n", failures), failures.isEmpty());
  }

  private static KubeObject object(JsonObject o) {
    return new KubeObject(o.get("namespace").getAsString(), o.get("name").getAsString(),
        o.get("uid").getAsString(), o.get("resource_version").getAsString(), Map.of(),
        ByteString.EMPTY);
  }

  private static Map<String, KubeObject> state(JsonArray objects) {
    Map<String, KubeObject> out = new LinkedHashMap<>();
    objects.forEach(o -> {
      KubeObject object = object(o.getAsJsonObject());
      out.put(object.key(), object);
    });
    return out;
  }

  private static String version(JsonElement v) {
    return v == null || v.isJsonNull() ? "none" : v.getAsString();
  }

  /** Events by key, in order within a key: the only order the vectors fix. */
  private static void addEvent(Map<String, List<String>> out, String type, String key,
      String oldVersion, String newVersion) {
    out.computeIfAbsent(key, k -> new ArrayList<>()).add(type + " " + oldVersion + "->" + newVersion);
  }

  @Test
  public void relistVectors() throws IOException {
    JsonArray cases = load("relist.json").getAsJsonArray("cases");
    List<String> failures = new ArrayList<>();
    for (JsonElement element : cases) {
      JsonObject c = element.getAsJsonObject();
      Map<String, List<String>> want = new TreeMap<>();
      for (JsonElement e : c.getAsJsonArray("events")) {
        JsonObject event = e.getAsJsonObject();
        addEvent(want, event.get("type").getAsString(),
            KubeObject.keyOf(event.get("namespace").getAsString(), event.get("name").getAsString()),
            version(event.get("old_resource_version")), version(event.get("new_resource_version")));
      }
      Map<String, List<String>> got = new TreeMap<>();
      for (CacheChange change :
          RelistDiff.compute(state(c.getAsJsonArray("before")), state(c.getAsJsonArray("after")))) {
        String oldVersion = change.oldObject().map(KubeObject::resourceVersion).orElse("none");
        String newVersion = change.newObject().map(KubeObject::resourceVersion).orElse("none");
        KubeObject either = change.newObject().orElseGet(() -> change.oldObject().get());
        String type = change.isDelete() ? "DELETE" : change.oldObject().isPresent() ? "UPDATE" : "ADD";
        if (change.isDelete() && !change.finalStateUnknown()) {
          type = "DELETE-WITH-KNOWN-FINAL-STATE";
        }
        addEvent(got, type, either.key(), oldVersion, newVersion);
      }
      if (!got.equals(want)) {
        failures.add(c.get("name").getAsString() + ": got " + got + ", want " + want);
      }
    }
    assertTrue(failures.size() + " of " + cases.size() + " relist vectors fail:\n"
        + String.join("\n", failures), failures.isEmpty());
  }
}
