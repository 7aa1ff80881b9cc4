# The example informer of client/cpp (//client/cpp:example) in a pod: it
# links the same Debian libraries as informerd, so it goes on informerd's
# image (hack/images.sh passes its reference) with the binary Bazel built.
ARG INFORMERD_IMAGE=informerd:0.2.0
FROM ${INFORMERD_IMAGE}
COPY example /usr/local/bin/informerd-example
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/informerd-example"]
