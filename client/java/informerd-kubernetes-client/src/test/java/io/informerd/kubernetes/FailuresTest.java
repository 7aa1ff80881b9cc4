package io.informerd.kubernetes;

import static org.junit.Assert.assertTrue;

import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.After;
import org.junit.Test;

/**
 * A wrong address reaches client-java's exception handler within 5s, naming
 * the address and the reason: nothing listening, and a port that answers
 * HTTP/1.1 instead of gRPC.
 */
public class FailuresTest {
  private Connection connection;
  private ServerSocket notGrpc;

  @After
  public void tearDown() throws IOException {
    if (connection != null) {
      connection.close();
    }
    if (notGrpc != null) {
      notGrpc.close();
    }
  }

  private static final ResourceRef CONFIGMAPS = new ResourceRef("", "v1", "configmaps");

  private static String closedPort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return "127.0.0.1:" + probe.getLocalPort();
    }
  }

  /** Answers every connection with a plain HTTP error, as a web or metrics port would. */
  private String startNotGrpc() throws IOException {
    notGrpc = new ServerSocket(0);
    Thread server = new Thread(() -> {
      while (!notGrpc.isClosed()) {
        try (Socket socket = notGrpc.accept()) {
          OutputStream out = socket.getOutputStream();
          out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
          out.flush();
          InputStream in = socket.getInputStream();
          byte[] buffer = new byte[4096];
          while (in.read(buffer) >= 0) {
            // Until the client hangs up.
          }
        } catch (IOException e) {
          // Closed by the test or the client.
        }
      }
    });
    server.setDaemon(true);
    server.start();
    return "127.0.0.1:" + notGrpc.getLocalPort();
  }

  private static void assertNames(String report, String address, String reason) {
    assertTrue(
        "report \"" + report + "\" should name " + address + ", configmaps and " + reason,
        report.contains(address) && report.contains("configmaps")
            && report.toLowerCase().contains(reason.toLowerCase()));
  }

  @Test
  public void closedPortIsReported() throws Exception {
    String address = closedPort();
    connection = Connection.builder().target(address).build();
    assertNames(FailureReports.firstReport(connection, CONFIGMAPS), address, "Connection refused");
  }

  @Test
  public void portThatIsNotGrpcIsReported() throws Exception {
    String address = startNotGrpc();
    connection = Connection.builder().target(address).build();
    assertNames(FailureReports.firstReport(connection, CONFIGMAPS), address, "HTTP");
  }
}
