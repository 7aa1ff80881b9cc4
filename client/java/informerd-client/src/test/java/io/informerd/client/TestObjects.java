package io.informerd.client;

import com.google.protobuf.ByteString;
import io.informerd.v1.Object;
import io.informerd.v1.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Builders for objects and watch events in tests. */
final class TestObjects {
  private TestObjects() {}

  static KubeObject object(String namespace, String name, String rv) {
    return object(namespace, name, rv, Map.of());
  }

  static KubeObject object(String namespace, String name, String rv, Map<String, String> labels) {
    return KubeObject.fromProto(proto(namespace, name, rv, "uid-" + name, labels));
  }

  static Object proto(
      String namespace, String name, String rv, String uid, Map<String, String> labels) {
    String json =
        "{\"metadata\":{\"namespace\":\"" + namespace + "\",\"name\":\"" + name
            + "\",\"resourceVersion\":\"" + rv + "\"}}";
    return Object.newBuilder()
        .setNamespace(namespace)
        .setName(name)
        .setUid(uid)
        .setResourceVersion(rv)
        .putAllLabels(labels)
        .setJson(ByteString.copyFrom(json, StandardCharsets.UTF_8))
        .build();
  }

  static WatchEvent event(WatchEvent.Type type, String namespace, String name, String rv) {
    return WatchEvent.newBuilder()
        .setType(type)
        .setObject(proto(namespace, name, rv, "uid-" + name, Map.of()))
        .setResourceVersion(rv)
        .build();
  }

  static WatchEvent initialEventsEnd(String rv) {
    return WatchEvent.newBuilder()
        .setType(WatchEvent.Type.BOOKMARK)
        .setObject(Object.newBuilder().setResourceVersion(rv))
        .setResourceVersion(rv)
        .setInitialEventsEnd(true)
        .build();
  }
}
