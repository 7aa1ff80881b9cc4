package io.informerd.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * Makes the description of every failed call start with "informerd at
 * SERVER: " and end with the transport's reason, so that an error read far
 * from the connection (an informer's log, client-java's reflector) says which
 * server it is about and why: grpc-java's own description of a refused
 * connection is only "io exception", with the reason in the cause. The code
 * and the cause are kept; cancellation by the caller passes unchanged.
 * Immutable.
 */
final class ServerNamingInterceptor implements ClientInterceptor {
  private final String prefix;

  ServerNamingInterceptor(String server) {
    this.prefix = "informerd at " + server + ": ";
  }

  /** {@code status} with the server and the cause's reason in its description. */
  Status name(Status status) {
    if (status.isOk() || status.getCode() == Status.Code.CANCELLED) {
      return status;
    }
    String description = status.getDescription() == null ? "" : status.getDescription();
    if (description.startsWith(prefix)) {
      return status;
    }
    Throwable cause = status.getCause();
    if (cause != null && cause.getMessage() != null && !description.contains(cause.getMessage())) {
      description = description.isEmpty() ? cause.getMessage() : description + ": " + cause.getMessage();
    }
    return status.withDescription(prefix + description);
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<ReqT, RespT>(
        next.newCall(method, callOptions)) {
      @Override
      public void start(Listener<RespT> listener, Metadata headers) {
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                super.onClose(name(status), trailers);
              }
            },
            headers);
      }
    };
  }
}
