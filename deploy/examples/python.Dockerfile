# The example informer of client/python (examples/example.py) in a pod:
# hack/images.sh gives this file a context of wheels/ (the informerd package
# and its dependencies, built and fetched on the host) and example/.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv \
 && rm -rf /var/lib/apt/lists/*
COPY wheels /tmp/wheels
RUN python3 -m venv /opt/informerd-example \
 && /opt/informerd-example/bin/pip install --no-index --find-links /tmp/wheels informerd \
 && rm -rf /tmp/wheels
COPY example /opt/informerd-example/example
USER 65532:65532
ENTRYPOINT ["/opt/informerd-example/bin/python", "-u", "/opt/informerd-example/example/example.py"]
