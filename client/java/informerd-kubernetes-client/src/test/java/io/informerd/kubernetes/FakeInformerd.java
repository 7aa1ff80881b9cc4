package io.informerd.kubernetes;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.ListRequest;
import io.informerd.v1.ListResponse;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scripted informerd in process: each List call answers the next queued
 * response or error, each Watch call plays the next queued script (events,
 * then an error, a clean end, or an open stream). Calls beyond the scripts
 * fail UNAVAILABLE (List) or stay open (Watch). Records every request.
 */
final class FakeInformerd implements AutoCloseable {
  /** One Watch call: {@code events}, then {@code end} (null: stay open; OK: complete). */
  static final class WatchScript {
    final List<WatchEvent> events;
    final Status end;

    WatchScript(List<WatchEvent> events, Status end) {
      this.events = events;
      this.end = end;
    }
  }

  final BlockingQueue<ListRequest> listRequests = new LinkedBlockingQueue<>();
  final BlockingQueue<WatchRequest> watchRequests = new LinkedBlockingQueue<>();
  private final BlockingQueue<Object> listAnswers = new LinkedBlockingQueue<>();
  private final BlockingQueue<WatchScript> watchScripts = new LinkedBlockingQueue<>();
  private final Server server;
  final ManagedChannel channel;

  FakeInformerd() throws IOException {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).addService(new Service()).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  void answerList(ListResponse response) {
    listAnswers.add(response);
  }

  void failList(Status status) {
    listAnswers.add(status);
  }

  void addWatch(WatchScript script) {
    watchScripts.add(script);
  }

  /**
   * Scripts a relist after a watch that informerd ends as too old: the
   * initial List (ns/a@5, ns/b@6 without apiVersion/kind, at 10), a Watch
   * that adds ns/c@11 and then fails OUT_OF_RANGE, the relist (b gone,
   * a now 16, c unchanged, at 20) and a Watch that stays open.
   */
  void scriptRelistAfterTooOldWatch() {
    answerList(ListResponse.newBuilder()
        .addItems(configMap("ns", "a", "5", true))
        .addItems(configMap("ns", "b", "6", false))
        .setResourceVersion("10").build());
    addWatch(new WatchScript(
        List.of(event(WatchEvent.Type.ADDED, "ns", "c", "11")),
        Status.OUT_OF_RANGE.withDescription("too old resource version: 11 (15)")));
    answerList(ListResponse.newBuilder()
        .addItems(configMap("ns", "a", "16", true))
        .addItems(configMap("ns", "c", "11", true))
        .setResourceVersion("20").build());
    addWatch(new WatchScript(List.of(), null));
  }

  ListRequest nextListRequest() throws InterruptedException {
    ListRequest request = listRequests.poll(10, TimeUnit.SECONDS);
    if (request == null) {
      throw new AssertionError("no List call within 10s");
    }
    return request;
  }

  WatchRequest nextWatchRequest() throws InterruptedException {
    WatchRequest request = watchRequests.poll(10, TimeUnit.SECONDS);
    if (request == null) {
      throw new AssertionError("no Watch call within 10s");
    }
    return request;
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  static io.informerd.v1.Object configMap(String namespace, String name, String rv, boolean typed) {
    String json =
        "{" + (typed ? "\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," : "")
            + "\"metadata\":{\"namespace\":\"" + namespace + "\",\"name\":\"" + name
            + "\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + rv + "\","
            + "\"labels\":{\"app\":\"web\"}},\"data\":{\"k\":\"" + rv + "\"}}";
    return io.informerd.v1.Object.newBuilder()
        .setJson(ByteString.copyFrom(json, StandardCharsets.UTF_8))
        .setNamespace(namespace)
        .setName(name)
        .setUid("uid-" + name)
        .setResourceVersion(rv)
        .putLabels("app", "web")
        .build();
  }

  static WatchEvent event(WatchEvent.Type type, String namespace, String name, String rv) {
    return WatchEvent.newBuilder()
        .setType(type)
        .setObject(configMap(namespace, name, rv, true))
        .setResourceVersion(rv)
        .build();
  }

  static WatchEvent bookmark(String rv) {
    return WatchEvent.newBuilder()
        .setType(WatchEvent.Type.BOOKMARK)
        .setObject(io.informerd.v1.Object.newBuilder().setResourceVersion(rv))
        .setResourceVersion(rv)
        .build();
  }

  private final class Service extends CacheGrpc.CacheImplBase {
    @Override
    public void list(ListRequest request, StreamObserver<ListResponse> response) {
      listRequests.add(request);
      Object answer = listAnswers.poll();
      if (answer instanceof ListResponse) {
        response.onNext((ListResponse) answer);
        response.onCompleted();
      } else if (answer instanceof Status) {
        response.onError(((Status) answer).asRuntimeException());
      } else {
        response.onError(Status.UNAVAILABLE.withDescription("no List scripted").asRuntimeException());
      }
    }

    @Override
    public void watch(WatchRequest request, StreamObserver<WatchEvent> events) {
      watchRequests.add(request);
      WatchScript script = watchScripts.poll();
      if (script == null) {
        return;
      }
      for (WatchEvent event : script.events) {
        events.onNext(event);
      }
      if (script.end == null) {
        return;
      }
      if (script.end.isOk()) {
        events.onCompleted();
      } else {
        events.onError(script.end.asRuntimeException());
      }
    }
  }
}
