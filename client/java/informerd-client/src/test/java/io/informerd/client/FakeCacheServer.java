package io.informerd.client;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.informerd.v1.CacheGrpc;
import io.informerd.v1.GetRequest;
import io.informerd.v1.GetResponse;
import io.informerd.v1.ListResourcesRequest;
import io.informerd.v1.ListResourcesResponse;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scripted informerd on a local port: each Watch call plays the next
 * script (events, then an error or an open stream), Get never answers, and
 * ListResources answers empty. Records requests and authorization headers.
 */
final class FakeCacheServer implements AutoCloseable {
  /** What one Watch call sends; {@code end} null keeps the stream open. */
  static final class Script {
    final List<WatchEvent> events;
    final Status end;

    Script(List<WatchEvent> events, Status end) {
      this.events = events;
      this.end = end;
    }
  }

  final BlockingQueue<WatchRequest> watchRequests = new LinkedBlockingQueue<>();
  final BlockingQueue<String> authorizations = new LinkedBlockingQueue<>();
  private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();
  private final Server server;

  FakeCacheServer() throws IOException {
    ServerInterceptor recordAuthorization =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String authorization = headers.get(BearerTokenCredentials.AUTHORIZATION);
            authorizations.add(authorization == null ? "" : authorization);
            return next.startCall(call, headers);
          }
        };
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(new Service(), recordAuthorization))
            .build()
            .start();
  }

  void addScript(Script script) {
    scripts.add(script);
  }

  String address() {
    return "127.0.0.1:" + server.getPort();
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
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Service extends CacheGrpc.CacheImplBase {
    @Override
    public void watch(WatchRequest request, StreamObserver<WatchEvent> events) {
      watchRequests.add(request);
      Script script = scripts.poll();
      if (script == null) {
        return;
      }
      for (WatchEvent event : script.events) {
        events.onNext(event);
      }
      if (script.end != null) {
        events.onError(script.end.asRuntimeException());
      }
    }

    @Override
    public void get(GetRequest request, StreamObserver<GetResponse> response) {}

    @Override
    public void listResources(
        ListResourcesRequest request, StreamObserver<ListResourcesResponse> response) {
      response.onNext(ListResourcesResponse.getDefaultInstance());
      response.onCompleted();
    }
  }
}
