"""Channels to informerd servers: addresses, TLS, bearer tokens, deadlines.

``connect`` builds a channel that spreads calls over every address it is
given, or that a ``dns:///`` name resolves to (round_robin), so replicas
share the load. Every call made through the channel carries
``authorization: Bearer <token>`` when a token is configured; a token file is
re-read on every call so a rotated token (e.g. a projected service account
token) is picked up without reconnecting. Unary calls without an explicit
timeout get ``ConnectionOptions.deadline_seconds``; streams get none.
"""

from __future__ import annotations

import collections
import ipaddress
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Tuple

import grpc


class TokenError(Exception):
    """The configured token file could not be read or is empty.

    Raised by a call instead of sending it unauthenticated.
    """


@dataclass(frozen=True)
class TlsOptions:
    """TLS settings. Files are PEM; ``ca_file`` None means the system roots.

    ``cert_file`` and ``key_file`` are a pair: both for a client certificate,
    or neither. ``server_name`` overrides the name checked against the
    server's certificate (for addresses given as IPs).
    """

    ca_file: Optional[str] = None
    cert_file: Optional[str] = None
    key_file: Optional[str] = None
    server_name: Optional[str] = None


@dataclass(frozen=True)
class ConnectionOptions:
    """Where the servers are and how to talk to them.

    ``addresses``: one target ("host:port", "dns:///name:port", or any gRPC
    target), or several "ip:port" addresses (all IPv4 or all IPv6). At most
    one of ``token`` and ``token_file``; a token needs ``tls`` unless
    ``allow_token_without_tls`` is set, which sends it over plaintext: only
    for servers on loopback or behind a trusted proxy, as the token would
    otherwise be readable on the network (the Go client's
    AllowTokenWithoutTLS). ``deadline_seconds`` None: no default deadline.
    """

    addresses: Sequence[str]
    tls: Optional[TlsOptions] = None
    token: Optional[str] = None
    token_file: Optional[str] = None
    allow_token_without_tls: bool = False
    deadline_seconds: Optional[float] = 30.0
    channel_options: Sequence[Tuple[str, Any]] = field(default_factory=tuple)


def target_for(addresses: Sequence[str]) -> str:
    """The gRPC target naming ``addresses``.

    Raises ValueError naming ``addresses`` when they are empty, or several
    and not all IP literals of one family (use a dns:/// name for
    hostnames).
    """
    if isinstance(addresses, str):
        raise ValueError("addresses: must be a sequence of strings, not a str")
    if not addresses:
        raise ValueError("addresses: at least one address is required")
    if any(not address for address in addresses):
        raise ValueError("addresses: empty address")
    if len(addresses) == 1:
        return addresses[0]
    families = {_ip_family(address) for address in addresses}
    if len(families) != 1 or None in families:
        raise ValueError(
            "addresses: several addresses must all be IPv4 or all be IPv6 "
            "'ip:port' literals; for host names use one dns:/// target")
    return "%s:%s" % (families.pop(), ",".join(addresses))


def _ip_family(address: str) -> Optional[str]:
    host, separator, port = address.rpartition(":")
    if not separator or not port.isdigit():
        return None
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return "ipv%d" % ipaddress.ip_address(host).version
    except ValueError:
        return None


class BearerToken:
    """The token to send, from a fixed string or re-read from a file.

    Thread-safe: holds no mutable state.
    """

    def __init__(self, token: Optional[str] = None,
                 token_file: Optional[str] = None) -> None:
        if token is not None and token_file is not None:
            raise ValueError("token, token_file: at most one may be set")
        if token is not None and not token.strip():
            raise ValueError("token: empty")
        self._token = token.strip() if token is not None else None
        self._token_file = token_file

    def configured(self) -> bool:
        return self._token is not None or self._token_file is not None

    def value(self) -> str:
        """The current token. Raises TokenError for an unusable file."""
        if self._token is not None:
            return self._token
        if self._token_file is None:
            raise TokenError("token: none configured")
        try:
            with open(self._token_file, encoding="utf-8") as token_file:
                token = token_file.read().strip()
        except (OSError, UnicodeDecodeError) as error:
            raise TokenError("token_file: cannot read %s: %s"
                             % (self._token_file, error)) from error
        if not token:
            raise TokenError("token_file: %s is empty" % self._token_file)
        return token


class _CallDetails(
        collections.namedtuple(
            "_CallDetails",
            ("method", "timeout", "metadata", "credentials", "wait_for_ready",
             "compression")),
        grpc.ClientCallDetails):
    pass


class CallInterceptor(grpc.UnaryUnaryClientInterceptor,
                      grpc.UnaryStreamClientInterceptor):
    """Adds the bearer token to every call and a default unary deadline.

    An interceptor rather than call credentials, because gRPC refuses call
    credentials on plaintext channels, and a server behind a TLS-terminating
    proxy still needs the token.
    """

    def __init__(self, token: BearerToken,
                 deadline_seconds: Optional[float]) -> None:
        self._token = token
        self._deadline_seconds = deadline_seconds

    def _details(self, details: grpc.ClientCallDetails,
                 unary: bool) -> _CallDetails:
        metadata = list(details.metadata or ())
        if self._token.configured():
            metadata.append(("authorization", "Bearer " + self._token.value()))
        timeout = details.timeout
        if unary and timeout is None:
            timeout = self._deadline_seconds
        return _CallDetails(details.method, timeout, metadata,
                            details.credentials, details.wait_for_ready,
                            getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Callable, details, request):
        return continuation(self._details(details, unary=True), request)

    def intercept_unary_stream(self, continuation: Callable, details, request):
        return continuation(self._details(details, unary=False), request)


def _read_file(path: Optional[str], option: str) -> Optional[bytes]:
    if path is None:
        return None
    try:
        with open(path, "rb") as pem:
            return pem.read()
    except OSError as error:
        raise ValueError("%s: cannot read %s: %s" % (option, path, error)) \
            from error


def channel_credentials(tls: TlsOptions) -> grpc.ChannelCredentials:
    """TLS credentials from ``tls``. ValueError names an unreadable file."""
    if (tls.cert_file is None) != (tls.key_file is None):
        raise ValueError(
            "tls.cert_file, tls.key_file: set both for a client certificate, "
            "or neither")
    return grpc.ssl_channel_credentials(
        root_certificates=_read_file(tls.ca_file, "tls.ca_file"),
        private_key=_read_file(tls.key_file, "tls.key_file"),
        certificate_chain=_read_file(tls.cert_file, "tls.cert_file"))


def channel_arguments(options: ConnectionOptions) -> list:
    """The gRPC channel arguments ``connect`` uses for ``options``."""
    arguments = [
        ("grpc.lb_policy_name", "round_robin"),
        # gRPC's own reconnect backoff grows to 120s by default, which would
        # keep an informer away from a restarted server long after its own
        # (1s at most) backoff has run out. grpc.min_reconnect_backoff_ms
        # stays at its default: gRPC uses it as the time a connection attempt
        # is given, and a short one fails slow TLS handshakes forever.
        ("grpc.initial_reconnect_backoff_ms", 200),
        ("grpc.max_reconnect_backoff_ms", 1000),
    ]
    if options.tls is not None and options.tls.server_name:
        arguments.append(
            ("grpc.ssl_target_name_override", options.tls.server_name))
    arguments.extend(options.channel_options)
    return arguments


def connect(options: ConnectionOptions) -> grpc.Channel:
    """A channel for ``options``. ValueError names a bad or unreadable option,
    among them a token without ``tls`` or ``allow_token_without_tls``.

    The caller owns the channel and closes it.
    """
    if options.deadline_seconds is not None and options.deadline_seconds <= 0:
        raise ValueError("deadline_seconds: must be positive or None")
    token = BearerToken(options.token, options.token_file)
    if (token.configured() and options.tls is None
            and not options.allow_token_without_tls):
        raise ValueError("token, token_file: a token needs tls "
                         "(or allow_token_without_tls=True)")
    target = target_for(options.addresses)
    arguments = channel_arguments(options)
    if options.tls is not None:
        channel = grpc.secure_channel(
            target, channel_credentials(options.tls), options=arguments)
    else:
        channel = grpc.insecure_channel(target, options=arguments)
    return ServerChannel(grpc.intercept_channel(
        channel, CallInterceptor(token, options.deadline_seconds)),
        ",".join(options.addresses))


class ServerChannel(grpc.Channel):
    """A channel that knows which server it reaches, so that informers can
    say so in their errors and logs. Delegates everything else."""

    def __init__(self, channel: grpc.Channel, server: str) -> None:
        self._channel = channel
        self.server = server

    def subscribe(self, callback, try_to_connect=False):
        return self._channel.subscribe(callback, try_to_connect)

    def unsubscribe(self, callback):
        return self._channel.unsubscribe(callback)

    def unary_unary(self, *args, **kwargs):
        return self._channel.unary_unary(*args, **kwargs)

    def unary_stream(self, *args, **kwargs):
        return self._channel.unary_stream(*args, **kwargs)

    def stream_unary(self, *args, **kwargs):
        return self._channel.stream_unary(*args, **kwargs)

    def stream_stream(self, *args, **kwargs):
        return self._channel.stream_stream(*args, **kwargs)

    def close(self):
        return self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


def server_of(channel: grpc.Channel) -> str:
    """The addresses a channel from ``connect`` reaches, else "unknown
    address" (a channel made some other way)."""
    return getattr(channel, "server", None) or "unknown address"
