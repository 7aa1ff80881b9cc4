"""The informerd.v1 API as protoc and grpcio-tools generate it from
proto/informerd/v1/informerd.proto when the package is built:
``informerd_pb2`` (messages) and ``informerd_pb2_grpc`` (``CacheStub``).
"""
