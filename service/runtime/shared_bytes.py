"""Bytes written unchanged to many HTTP streams, framed for the wire once (issue 13).

A batch of events reaches every SSE subscriber of a game that shares a viewer (every spectator,
say) as the same text. ``SharedBytes`` is that text, encoded once; the gevent worker
(service/runtime/gunicorn_worker.py) frames it as an HTTP/1.1 chunk once, on the first stream it is
written to, and writes the same framed bytes to the others. Dependency-free: the worker imports
it before gevent patches the process.
"""

from __future__ import annotations


class SharedBytes(bytes):
    """``bytes`` that remember their HTTP/1.1 chunk, built the first time it is asked for."""

    _chunk: bytes

    def chunk(self) -> bytes:
        """``self`` framed as one chunk of a chunked body (RFC 9112 §7.1)."""
        try:
            return self._chunk
        except AttributeError:
            self._chunk = chunk(self)
            return self._chunk


def chunk(data: bytes) -> bytes:
    """``data`` as one chunk of a chunked body: its length in hex, the data, CRLF."""
    return b"%X\r\n%s\r\n" % (len(data), data)
