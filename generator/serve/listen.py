"""The socket a command serves on (``serve``, ``watch``), bound before anything else starts."""

from __future__ import annotations

import errno
import socket

from generator.errors import ConfigError


def listening_socket(host: str, port: int) -> socket.socket:
    """The served socket, bound before the command does any work: a bad port, an address that
    is not this machine's or a port in use ends it in one line, before a build or the demo
    store's start is spent (uvicorn would find it only after, among its log lines)."""
    if not 0 < port < 65536:
        raise ConfigError(f"--port must be between 1 and 65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = "in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise ConfigError(f"cannot listen on {host}:{port} ({why})") from None
    return sock
