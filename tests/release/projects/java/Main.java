// Lists the configmaps of one namespace through informerd with the Java
// client as a user installs it (tests/release): one NAMESPACE/NAME a line.
//
// Usage: java Main ADDRESS NAMESPACE

import io.informerd.client.Connection;
import io.informerd.v1.ListRequest;
import io.informerd.v1.ListResponse;
import io.informerd.v1.Object;
import io.informerd.v1.ResourceName;
import java.util.concurrent.TimeUnit;

public final class Main {
  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: java Main ADDRESS NAMESPACE");
      System.exit(2);
    }
    Connection connection = Connection.builder().target(args[0]).build();
    try {
      ListResponse response =
          connection
              .blockingStub()
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .list(
                  ListRequest.newBuilder()
                      .setResource(ResourceName.newBuilder().setResource("configmaps"))
                      .setNamespace(args[1])
                      .build());
      for (Object item : response.getItemsList()) {
        System.out.println(item.getNamespace() + "/" + item.getName());
      }
    } finally {
      connection.close();
    }
  }
}
