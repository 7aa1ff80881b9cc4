# The example client-java controller of client/java (KubernetesClientController)
# in a pod: hack/images.sh resolves and builds it with Maven on the host and
# gives this file a context of classes/ and lib/ (every jar of its classpath).
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/*
COPY classes /opt/informerd-example/classes
COPY lib /opt/informerd-example/lib
USER 65532:65532
ENTRYPOINT ["java", "-cp", "/opt/informerd-example/classes:/opt/informerd-example/lib/*", \
  "io.informerd.client.examples.KubernetesClientController"]
