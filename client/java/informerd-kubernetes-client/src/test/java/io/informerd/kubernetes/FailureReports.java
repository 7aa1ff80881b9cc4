package io.informerd.kubernetes;

import static org.junit.Assert.fail;

import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs client-java's SharedIndexInformer over the adapter and returns what
 * reaches its exception handler (client-java's error channel) first.
 */
public final class FailureReports {
  /** How soon a failure must be reported. */
  public static final Duration WITHIN = Duration.ofSeconds(5);

  private FailureReports() {}

  /**
   * The message of the first Throwable given to the informer's exception
   * handler within {@link #WITHIN} (its own, not its causes': what a one-line
   * log shows); fails the test when none comes.
   */
  public static String firstReport(Connection connection, ResourceRef resource) throws Exception {
    ApiClient apiClient = new ApiClient();
    apiClient.setHttpClient(apiClient.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build());
    SharedInformerFactory factory = new SharedInformerFactory(apiClient);
    BlockingQueue<Throwable> reports = new LinkedBlockingQueue<>();
    factory.sharedIndexInformerFor(
        InformerdListerWatcher.builder(connection, V1ConfigMap.class, V1ConfigMapList.class, resource)
            .build(),
        V1ConfigMap.class,
        0,
        (type, error) -> reports.add(error));
    factory.startAllRegisteredInformers();
    try {
      Throwable report = reports.poll(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
      if (report == null) {
        fail("nothing reached the informer's exception handler within " + WITHIN);
      }
      StringBuilder chain = new StringBuilder();
      for (Throwable t = report; t != null; t = t.getCause()) {
        chain.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" | ");
      }
      System.out.println("reported: " + chain);
      return report.getMessage();
    } finally {
      factory.stopAllRegisteredInformers();
    }
  }
}
