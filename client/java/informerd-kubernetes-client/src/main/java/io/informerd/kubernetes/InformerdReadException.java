package io.informerd.kubernetes;

import io.grpc.Status;

/**
 * A read of the no-copy mode ({@link RemoteIndexer}, {@link RemoteLister})
 * failed: the message names the server, the read and informerd's reason.
 * {@link #code()} is the HTTP code the kube-apiserver would have answered
 * (503 when informerd had not reached {@link #minResourceVersion()} within
 * its bounded wait: it answers late or not at all, never older; 429 when
 * the caller's request rate or waiting reads are over informerd's limits).
 * Unchecked, because client-java's {@code Lister} and {@code Indexer}
 * declare no exceptions.
 */
public final class InformerdReadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Status status;
  private final String minResourceVersion;

  InformerdReadException(String operation, Status status, String minResourceVersion) {
    super(operation + ": " + status.getCode() + ": " + status.getDescription(),
        status.asRuntimeException());
    this.status = status;
    this.minResourceVersion = minResourceVersion;
  }

  /** informerd's gRPC status. */
  public Status status() {
    return status;
  }

  /** The HTTP code the apiserver answers in the same situation. */
  public int code() {
    return StatusMapping.httpCode(status.getCode());
  }

  /** The version the read asked for at least ("" for none). */
  public String minResourceVersion() {
    return minResourceVersion;
  }
}
