package io.informerd.kubernetes;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client-java watch over informerd's Watch stream.
 *
 * <p>It behaves as an apiserver watch does for client-java's reflector: it
 * ends cleanly at its timeout; a resume point informerd no longer has
 * (OUT_OF_RANGE) or a watcher that fell behind (RESOURCE_EXHAUSTED after
 * events) becomes an ERROR event with a 410 Status, on which the reflector
 * relists; a watch refused before any event (RESOURCE_EXHAUSTED: the
 * caller's budgets) an ERROR event with a 429 Status, and the informer's
 * {@link RefusalBackoff} delays its next list. An
 * informerd that becomes unavailable (restarting, or another replica needed)
 * while this watch is receiving is not the reflector's business: the stream
 * is reopened from the last resourceVersion delivered, after a short capped
 * backoff, with the channel's own connect backoff reset so a restarted
 * server is used as soon as it is ready; for up to {@link #RESUME_FOR}. A
 * watch that never reached the server, or one whose server stays away
 * longer, ends with an ERROR event holding a 503 Status that names the
 * server and the reason, which the reflector reports to its exception
 * handler before it lists again.
 */
final class GrpcWatch<T extends KubernetesObject> implements Watchable<T> {
  private static final Logger logger = Logger.getLogger(GrpcWatch.class.getName());
  static final Duration INITIAL_RETRY = Duration.ofMillis(100);
  static final Duration MAX_RETRY = Duration.ofMillis(500);
  /** Longer than an informerd restart takes, so a restart costs no relist. */
  static final Duration RESUME_FOR = Duration.ofSeconds(30);

  /** Opens a Watch call bound to the given context. */
  interface Opener {
    /** {@code deadline} null: none. */
    Iterator<WatchEvent> open(
        WatchRequest request, Context.CancellableContext context, Deadline deadline);
  }

  private final Opener opener;
  private final Runnable resetConnectBackoff;
  private final RefusalBackoff refusals;
  private final Function<WatchEvent, Watch.Response<T>> convert;
  private final Instant deadline; // null: no timeout
  private final CountDownLatch closed = new CountDownLatch(1);
  private WatchRequest request;

  private final Object lock = new Object();
  // Guarded by lock.
  private Context.CancellableContext context;

  // Reader thread only.
  private Iterator<WatchEvent> events;
  private Watch.Response<T> pending;
  private boolean done;
  private boolean received; // some stream of this watch delivered an event
  private Instant failingSince; // null while a stream is receiving

  GrpcWatch(
      Opener opener,
      Runnable resetConnectBackoff,
      RefusalBackoff refusals,
      WatchRequest request,
      Duration timeout,
      Function<WatchEvent, Watch.Response<T>> convert) {
    this.opener = opener;
    this.resetConnectBackoff = resetConnectBackoff;
    this.refusals = refusals;
    this.request = request;
    this.deadline = timeout == null ? null : Instant.now().plus(timeout);
    this.convert = convert;
  }

  @Override
  public boolean hasNext() {
    Duration retry = INITIAL_RETRY;
    while (pending == null && !done) {
      if (isClosed() || (deadline != null && !Instant.now().isBefore(deadline))) {
        done = true;
        break;
      }
      try {
        if (events == null) {
          events = openStream();
        }
        if (!events.hasNext()) {
          // The server ended the stream: the watch is over, as when the
          // apiserver closes one; the reflector watches again.
          done = true;
          break;
        }
        WatchEvent event = events.next();
        pending = convert.apply(event);
        // Resume after this event if the stream breaks later.
        request = request.toBuilder().setResourceVersion(event.getResourceVersion()).build();
        retry = INITIAL_RETRY;
        if (!received) {
          refusals.served();
        }
        received = true;
        failingSince = null;
      } catch (StatusRuntimeException e) {
        events = null;
        Status status = e.getStatus();
        if (isClosed() || status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
          done = true;
        } else if (StatusMapping.watchErrorCode(status.getCode(), received) != 0) {
          int code = StatusMapping.watchErrorCode(status.getCode(), received);
          if (code == 429) {
            refusals.refused();
          }
          pending = new Watch.Response<>("ERROR", StatusMapping.toV1Status(code, status));
          done = true;
        } else if (status.getCode() == Status.Code.UNAVAILABLE && !resumeOver()) {
          logger.log(Level.INFO, "informerd watch of " + request.getResource().getResource()
              + " unavailable (" + status.getDescription() + "); reopening from "
              + request.getResourceVersion());
          if (!sleep(retry)) {
            done = true;
            break;
          }
          retry = retry.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : retry.multipliedBy(2);
          resetConnectBackoff.run();
        } else if (status.getCode() == Status.Code.UNAVAILABLE) {
          pending =
              new Watch.Response<>(
                  "ERROR", StatusMapping.toV1Status(StatusMapping.httpCode(status.getCode()), status));
          done = true;
        } else {
          done = true;
          throw new IllegalStateException(
              "informerd watch of " + request.getResource().getResource() + ": " + status, e);
        }
      }
    }
    return pending != null;
  }

  @Override
  public Watch.Response<T> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Watch.Response<T> response = pending;
    pending = null;
    return response;
  }

  @Override
  public Iterator<Watch.Response<T>> iterator() {
    return this;
  }

  /** Cancels the stream; a blocked {@link #hasNext} returns false. Idempotent. */
  @Override
  public void close() {
    closed.countDown();
    synchronized (lock) {
      if (context != null) {
        context.cancel(Status.CANCELLED.withDescription("watch closed").asException());
      }
    }
  }

  private Iterator<WatchEvent> openStream() {
    Context.CancellableContext newContext;
    synchronized (lock) {
      if (context != null) {
        context.cancel(null);
      }
      newContext = Context.current().withCancellation();
      context = newContext;
      if (isClosed()) {
        // close() ran before this context existed; the call fails CANCELLED.
        newContext.cancel(null);
      }
    }
    Deadline callDeadline = null;
    if (deadline != null) {
      long leftMillis = Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
      callDeadline = Deadline.after(leftMillis, TimeUnit.MILLISECONDS);
    }
    return opener.open(request, newContext, callDeadline);
  }

  /** True when an UNAVAILABLE stream is not to be reopened; starts the clock on the first. */
  private boolean resumeOver() {
    Instant now = Instant.now();
    if (failingSince == null) {
      failingSince = now;
    }
    return !received || Duration.between(failingSince, now).compareTo(RESUME_FOR) > 0;
  }

  private boolean isClosed() {
    return closed.getCount() == 0;
  }

  /** Returns false when closed while waiting. */
  private boolean sleep(Duration delay) {
    try {
      return !closed.await(delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
