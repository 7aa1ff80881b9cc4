package io.informerd.kubernetes;

import io.grpc.Status;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Status;
import java.net.HttpURLConnection;
import java.util.Map;

/**
 * informerd's gRPC status codes as the HTTP codes the kube-apiserver answers
 * in the same situations, so client-java's reflector reacts as it does to the
 * apiserver: 410 Gone relists, everything else is retried by its loop (after
 * a {@link RefusalBackoff} when informerd refused the call: 429).
 */
final class StatusMapping {
  private StatusMapping() {}

  /** HTTP code for a failed List (a Watch: {@link #watchErrorCode}). */
  static int httpCode(Status.Code code) {
    switch (code) {
      case OUT_OF_RANGE: // resource version or continue token too old
        return HttpURLConnection.HTTP_GONE;
      case INVALID_ARGUMENT:
        return HttpURLConnection.HTTP_BAD_REQUEST;
      case UNAUTHENTICATED:
        return HttpURLConnection.HTTP_UNAUTHORIZED;
      case PERMISSION_DENIED:
        return HttpURLConnection.HTTP_FORBIDDEN;
      case NOT_FOUND:
        return HttpURLConnection.HTTP_NOT_FOUND;
      case RESOURCE_EXHAUSTED:
        return 429;
      case UNAVAILABLE:
        return HttpURLConnection.HTTP_UNAVAILABLE;
      case DEADLINE_EXCEEDED:
        return HttpURLConnection.HTTP_GATEWAY_TIMEOUT;
      default:
        return HttpURLConnection.HTTP_INTERNAL_ERROR;
    }
  }

  /**
   * HTTP code of the ERROR event for a Watch that failed with {@code code},
   * or 0 when the failure is not the reflector's (the stream is retried, or
   * the watch just ends). A resume point that left informerd's history
   * (OUT_OF_RANGE, e.g. after an informerd restart) or a watcher cut off for
   * falling behind it (RESOURCE_EXHAUSTED after events) mean "relist": 410
   * Gone, as from the apiserver. RESOURCE_EXHAUSTED before any event is a
   * refusal (the caller's watch, rate or initial-events budget): 429, the
   * apiserver's answer to a caller over its limits; relisting at once would
   * be refused again.
   */
  static int watchErrorCode(Status.Code code, boolean received) {
    switch (code) {
      case OUT_OF_RANGE:
        return HttpURLConnection.HTTP_GONE;
      case RESOURCE_EXHAUSTED:
        return received ? HttpURLConnection.HTTP_GONE : 429;
      default:
        return 0;
    }
  }

  static V1Status toV1Status(int httpCode, Status status) {
    return new V1Status()
        .apiVersion("v1")
        .kind("Status")
        .status("Failure")
        .code(httpCode)
        .reason(httpCode == HttpURLConnection.HTTP_GONE ? "Expired" : status.getCode().name())
        .message("informerd: " + status.getCode() + ": " + status.getDescription());
  }

  static ApiException toApiException(String operation, Status status) {
    int httpCode = httpCode(status.getCode());
    V1Status body = toV1Status(httpCode, status);
    return new ApiException(
        operation + ": " + body.getMessage(),
        status.asRuntimeException(),
        httpCode,
        Map.of(),
        JSON.serialize(body));
  }
}
