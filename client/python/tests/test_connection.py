"""Connection options: targets, tokens, deadlines and TLS, the last two
against an in-process server."""

import os
import subprocess

import grpc
import pytest

from informerd import (BearerToken, ConnectionOptions, TlsOptions, TokenError,
                       connect, pb, pb_grpc, target_for)
from informerd.connection import channel_arguments
from fake_server import ScriptedCache, start_server


def test_single_address_is_the_target():
    assert target_for(["dns:///informerd.example:50051"]) == \
        "dns:///informerd.example:50051"
    assert target_for(["localhost:1"]) == "localhost:1"


def test_several_ip_addresses_share_one_target():
    assert target_for(["10.0.0.1:1", "10.0.0.2:2"]) == \
        "ipv4:10.0.0.1:1,10.0.0.2:2"
    assert target_for(["[::1]:1", "[fe80::1]:2"]) == "ipv6:[::1]:1,[fe80::1]:2"


@pytest.mark.parametrize("addresses", [
    [], [""], "127.0.0.1:1", ["a.example:1", "b.example:1"],
    ["10.0.0.1:1", "[::1]:1"], ["10.0.0.1", "10.0.0.2:1"]])
def test_bad_addresses_are_rejected_naming_the_field(addresses):
    with pytest.raises(ValueError, match="addresses"):
        target_for(addresses)


def test_channel_balances_round_robin_and_overrides_server_name():
    arguments = channel_arguments(ConnectionOptions(
        ["127.0.0.1:1"], tls=TlsOptions(server_name="informerd.local")))
    assert ("grpc.lb_policy_name", "round_robin") in arguments
    assert ("grpc.ssl_target_name_override", "informerd.local") in arguments


def test_token_file_is_reread(tmp_path):
    path = tmp_path / "token"
    path.write_text("first\n")
    token = BearerToken(token_file=str(path))
    assert token.value() == "first"
    path.write_text("second")
    assert token.value() == "second"


def test_unusable_token_file_is_an_error(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text(" \n")
    with pytest.raises(TokenError, match="token_file: .* is empty"):
        BearerToken(token_file=str(empty)).value()
    with pytest.raises(TokenError, match="token_file: cannot read"):
        BearerToken(token_file=str(tmp_path / "missing")).value()


def test_token_and_token_file_are_exclusive():
    with pytest.raises(ValueError, match="token, token_file"):
        BearerToken(token="a", token_file="b")


@pytest.mark.parametrize("token", [
    {"token": "s3cret"}, {"token_file": "/nonexistent/token"}])
@pytest.mark.parametrize("address", ["informerd.example:50051",
                                     "127.0.0.1:50051", "[::1]:50051"])
def test_token_without_tls_is_refused_unless_allowed(token, address):
    # As in the Go client, loopback is no exception: whether a plaintext
    # token is safe depends on the path to the server, not its address.
    with pytest.raises(ValueError, match=(
            r"^token, token_file: a token needs tls "
            r"\(or allow_token_without_tls=True\)$")):
        connect(ConnectionOptions([address], **token))
    connect(ConnectionOptions([address], allow_token_without_tls=True,
                              **token)).close()
    connect(ConnectionOptions([address], tls=TlsOptions(), **token)).close()
    connect(ConnectionOptions([address])).close()


def test_non_positive_deadline_is_rejected():
    with pytest.raises(ValueError, match="deadline_seconds"):
        connect(ConnectionOptions(["127.0.0.1:1"], deadline_seconds=0))


def test_missing_tls_file_is_an_error_naming_the_field(tmp_path):
    with pytest.raises(ValueError, match="tls.ca_file: cannot read"):
        connect(ConnectionOptions(
            ["127.0.0.1:1"], tls=TlsOptions(ca_file=str(tmp_path / "no"))))
    with pytest.raises(ValueError, match="tls.cert_file, tls.key_file"):
        connect(ConnectionOptions(
            ["127.0.0.1:1"], tls=TlsOptions(cert_file="c")))


@pytest.fixture
def servicer():
    servicer = ScriptedCache([])
    yield servicer
    servicer.close()


def call_list_resources(options, **kwargs):
    channel = connect(options)
    try:
        return pb_grpc.CacheStub(channel).ListResources(
            pb.ListResourcesRequest(), **kwargs)
    finally:
        channel.close()


def test_calls_carry_the_bearer_token(servicer, tmp_path):
    server, port = start_server(servicer)
    try:
        path = tmp_path / "token"
        path.write_text("secret-1")
        options = ConnectionOptions(["127.0.0.1:%d" % port],
                                    token_file=str(path),
                                    allow_token_without_tls=True)
        call_list_resources(options)
        path.write_text("secret-2")
        call_list_resources(options)
        call_list_resources(ConnectionOptions(["127.0.0.1:%d" % port]))
    finally:
        server.stop(None)
    assert [m.get("authorization") for m in servicer.metadata] == [
        "Bearer secret-1", "Bearer secret-2", None]


def test_unreadable_token_file_fails_the_call(servicer, tmp_path):
    server, port = start_server(servicer)
    try:
        with pytest.raises(TokenError):
            call_list_resources(ConnectionOptions(
                ["127.0.0.1:%d" % port], token_file=str(tmp_path / "none"),
                allow_token_without_tls=True))
    finally:
        server.stop(None)
    assert servicer.metadata == []


def test_unary_calls_get_the_default_deadline():
    # Nothing listens on the port; wait_for_ready makes the call wait for
    # its deadline instead of failing at once.
    with pytest.raises(grpc.RpcError) as error:
        call_list_resources(ConnectionOptions(
            ["127.0.0.1:1"], deadline_seconds=0.2), wait_for_ready=True)
    assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def openssl(*args, cwd):
    subprocess.run(("openssl",) + args, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate."""
    directory = str(tmp_path_factory.mktemp("pki"))
    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
           "-nodes")
    openssl("req", "-x509", *key, "-days", "1", "-subj", "/CN=test-ca",
            "-keyout", "ca.key", "-out", "ca.crt", cwd=directory)
    for name, extensions in (
            ("server", "subjectAltName=IP:127.0.0.1\n"
                       "extendedKeyUsage=serverAuth\n"),
            ("client", "extendedKeyUsage=clientAuth\n")):
        openssl("req", *key, "-subj", "/CN=" + name, "-keyout",
                name + ".key", "-out", name + ".csr", cwd=directory)
        with open(os.path.join(directory, name + ".ext"), "w") as ext:
            ext.write(extensions)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt",
                "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
                "-extfile", name + ".ext", "-out", name + ".crt",
                cwd=directory)
    return directory


def read(directory, name):
    with open(os.path.join(directory, name), "rb") as pem:
        return pem.read()


def test_tls_with_client_certificate_and_token(servicer, pki):
    credentials = grpc.ssl_server_credentials(
        [(read(pki, "server.key"), read(pki, "server.crt"))],
        root_certificates=read(pki, "ca.crt"),
        require_client_auth=True)
    server, port = start_server(servicer, credentials)
    path = lambda name: os.path.join(pki, name)  # noqa: E731
    try:
        call_list_resources(ConnectionOptions(
            ["127.0.0.1:%d" % port], token="tls-token",
            tls=TlsOptions(ca_file=path("ca.crt"),
                           cert_file=path("client.crt"),
                           key_file=path("client.key"))))
        # Without the client certificate the handshake is refused.
        with pytest.raises(grpc.RpcError) as error:
            call_list_resources(ConnectionOptions(
                ["127.0.0.1:%d" % port], deadline_seconds=5,
                tls=TlsOptions(ca_file=path("ca.crt"))))
        assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(None)
    assert [m.get("authorization") for m in servicer.metadata] == [
        "Bearer tls-token"]


def test_tls_rejects_an_unknown_server_certificate(servicer, pki, tmp_path):
    credentials = grpc.ssl_server_credentials(
        [(read(pki, "server.key"), read(pki, "server.crt"))])
    server, port = start_server(servicer, credentials)
    other_ca = tmp_path / "other-ca.crt"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
            "/CN=other", "-keyout", "other.key", "-out", str(other_ca),
            cwd=str(tmp_path))
    try:
        with pytest.raises(grpc.RpcError) as error:
            call_list_resources(ConnectionOptions(
                ["127.0.0.1:%d" % port], deadline_seconds=5,
                tls=TlsOptions(ca_file=str(other_ca))))
        assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(None)
    assert servicer.metadata == []
