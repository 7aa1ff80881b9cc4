# The example controller-runtime controller of client/go (examples/
# controller-runtime) in a pod: hack/images.sh builds the static binary on
# the host and gives this file a context holding only it.
FROM debian:bookworm-slim
COPY controller-runtime /usr/local/bin/controller-runtime
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/controller-runtime"]
