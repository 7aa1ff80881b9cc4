"""Lists the configmaps of one namespace through informerd with the Python
client as a user installs it (tests/release): one NAMESPACE/NAME a line.

Usage: python main.py ADDRESS NAMESPACE
"""

import sys

import informerd
from informerd.v1 import informerd_pb2, informerd_pb2_grpc


def main(address: str, namespace: str) -> None:
    channel = informerd.connect(informerd.ConnectionOptions([address]))
    try:
        response = informerd_pb2_grpc.CacheStub(channel).List(
            informerd_pb2.ListRequest(
                resource=informerd_pb2.ResourceName(resource="configmaps"),
                namespace=namespace),
            timeout=30)
        for item in response.items:
            print("%s/%s" % (item.namespace, item.name))
    finally:
        channel.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python main.py ADDRESS NAMESPACE")
    main(sys.argv[1], sys.argv[2])
