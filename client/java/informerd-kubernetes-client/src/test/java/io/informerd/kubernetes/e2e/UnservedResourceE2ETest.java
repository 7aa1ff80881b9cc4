package io.informerd.kubernetes.e2e;

import static org.junit.Assert.assertTrue;

import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.informerd.client.e2e.E2eEnvironment;
import io.informerd.client.e2e.InformerdProcess;
import io.informerd.kubernetes.FailureReports;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A resource the real informerd does not serve (it serves configmaps; secrets
 * exist in the apiserver) reaches client-java's exception handler within 5s,
 * naming the resource, the reason and the server.
 */
public class UnservedResourceE2ETest {
  @Rule public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void unservedResourceIsReported() throws Exception {
    E2eEnvironment env = E2eEnvironment.require();
    try (InformerdProcess informerd = new InformerdProcess(env, temp.newFile("informerd.log"))) {
      informerd.start();
      try (Connection connection = Connection.builder().target(informerd.grpcAddress()).build()) {
        String report =
            FailureReports.firstReport(connection, new ResourceRef("", "v1", "secrets"));
        assertTrue(
            "report \"" + report + "\" should name secrets, not served and "
                + informerd.grpcAddress(),
            report.contains("secrets") && report.contains("not served")
                && report.contains(informerd.grpcAddress()));
      }
    }
  }
}
