"""The distributed profile's Redis check before a crawl (``preflight.check_redis``), where
no Redis answers; a Redis with a password: tests/integration/test_distributed_auth.py."""

from __future__ import annotations

import socket

from bitextcrawl.preflight import check_redis, shown_url


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_password_is_never_shown():
    assert shown_url("redis://:pw@127.0.0.1:6379/0") == "redis://:***@127.0.0.1:6379/0"
    assert shown_url("rediss://user:p%40w@h:6380/1?ssl_ca_certs=/c.crt") == \
        "rediss://user:***@h:6380/1?ssl_ca_certs=/c.crt"
    assert shown_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_a_redis_that_does_not_answer_is_one_line():
    port = closed_port()
    message = check_redis(f"redis://:hidden@127.0.0.1:{port}/0", timeout=2)
    assert message.startswith(f"Redis at redis://:***@127.0.0.1:{port}/0 does not answer")
    assert "hidden" not in message and "\n" not in message
    tls = check_redis(f"rediss://127.0.0.1:{port}/0", timeout=2)
    assert "needs a Redis that speaks TLS" in tls


def test_a_url_that_is_not_redis_is_one_line():
    message = check_redis("http://127.0.0.1:6379/0", timeout=2)
    assert message.startswith("REDIS_URL=http://127.0.0.1:6379/0 is not a Redis URL")
