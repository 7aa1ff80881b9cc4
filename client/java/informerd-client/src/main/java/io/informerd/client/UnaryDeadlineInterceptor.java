package io.informerd.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every unary call (List, Get, ListResources) a deadline unless the
 * caller set one, so a stuck server cannot hang a caller forever. Streaming
 * calls (Watch) are long-lived by design and are left alone. Immutable.
 */
final class UnaryDeadlineInterceptor implements ClientInterceptor {
  private final Duration deadline;

  /** REQUIRES: {@code deadline} is positive. */
  UnaryDeadlineInterceptor(Duration deadline) {
    this.deadline = deadline;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    if (method.getType() == MethodDescriptor.MethodType.UNARY
        && callOptions.getDeadline() == null) {
      callOptions = callOptions.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
    }
    return next.newCall(method, callOptions);
  }
}
