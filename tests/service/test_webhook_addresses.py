"""Webhooks reach only public receivers (issue 23 item 9): every spelling of an internal address
is refused when registered, a name is resolved at each delivery and every address it resolves
to is checked, the connection goes to the address checked, and a failure says nothing about why.

No test here sends anything but to loopback: the ranges a webhook may not reach are checked by
the classifier and the resolver (getaddrinfo replaced), never by a delivery that connects."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import pytest

from service.app import webhooks as webhooks_module
from service.app.webhooks import (
    UNREACHABLE,
    ForbiddenAddress,
    Webhooks,
    is_forbidden_address,
    names_internal_host,
    resolve,
)
from tests.service.test_me_and_webhooks import Receiver

FORBIDDEN = ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1",
             "100.127.255.254", "169.254.169.254", "0.0.0.0", "255.255.255.255", "224.0.0.1",
             "240.0.0.1", "192.0.0.8", "192.0.2.1", "198.18.0.1", "192.88.99.1",
             "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "2001:db8::1",
             "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "2002:7f00:1::1",
             "2002:a9fe:a9fe::", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1",
             "2001::1"]
ALLOWED = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "2a00:1450:4001::1",
           "2002:808:808::1", "64:ff9b::808:808"]


@pytest.mark.parametrize("address", FORBIDDEN)
def test_the_classifier_refuses_every_internal_special_or_embedded_internal_address(address):
    assert is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ALLOWED)
def test_the_classifier_allows_public_unicast_addresses(address):
    assert not is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("url", [
    "https://2130706433/", "https://127.1/", "https://0x7f000001/", "https://0177.0.0.1/",
    "https://0/", "https://localhost./", "https://vm/", "https://redis:6379/",
    "https://100.64.0.1/", "https://[::ffff:127.0.0.1]/", "https://[::1]:6379/",
    "https://metadata.internal/", "https://x.localhost/", "https://example.com:99999/"])
def test_registering_any_spelling_of_an_internal_host_is_refused(api, url):
    headers = api.player("ann")
    response = api.client.post("/v1/me/webhooks", headers=headers, json={"url": url})
    assert response.status_code == 400 and response.json["code"] == "invalid_webhook_url", url
    assert api.client.get("/v1/me/webhooks", headers=headers).json == []


class FakeDns:
    """getaddrinfo with some names answered from a table (counting the lookups); numeric
    hosts and every other name go to the real resolver."""

    def __init__(self, monkeypatch, table: dict[str, list[str]]):
        self.table = table
        self.lookups: dict[str, int] = {}
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            if host in self.table and not kwargs.get("flags", 0) & socket.AI_NUMERICHOST:
                self.lookups[host] = self.lookups.get(host, 0) + 1
                answer = self.table[host]
                if not answer:
                    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
                return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM,
                         6, "", (ip, port or 0)) for ip in answer]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("answer", [["127.0.0.1"], ["8.8.8.8", "10.0.0.5"],
                                    ["2606:4700::1111", "::ffff:169.254.169.254"],
                                    ["100.64.0.1"], ["fe80::1"]])
def test_a_name_resolving_to_any_internal_address_is_refused_whole(monkeypatch, answer):
    FakeDns(monkeypatch, {"rebind.example": answer})
    with pytest.raises(ForbiddenAddress):
        resolve("rebind.example", 443)


def test_a_name_resolving_only_to_public_addresses_gives_them_all(monkeypatch):
    FakeDns(monkeypatch, {"push.example": ["8.8.8.8", "2606:4700::1111", "8.8.8.8"]})
    assert resolve("push.example", 443) == ["8.8.8.8", "2606:4700::1111"]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def _notify(hooks: Webhooks, player: str, url: str, queued: list) -> dict:
    hook = hooks.register(player, url, None)
    hooks.notify(player, {"kind": "your_turn", "game_id": "g", "id": f"{player}-1"})
    return hook


def test_a_delivery_to_a_name_that_now_resolves_to_loopback_never_connects(
        redis_client, receiver, monkeypatch):
    """Wildcard DNS (*.nip.io) or rebinding: the name passed at registration, the delivery
    resolves it again and finds loopback (where a receiver listens): nothing is sent."""
    port = receiver.server.server_address[1]
    FakeDns(monkeypatch, {"127-0-0-1.nip.example": ["127.0.0.1"]})
    connections: list = []
    monkeypatch.setattr(socket, "create_connection",
                        lambda *args, **kwargs: connections.append(args))
    queued: list = []
    hooks = Webhooks(redis_client, lambda *args: queued.append(args), retry_intervals=(1,))
    hook = _notify(hooks, "p_rebind", f"https://127-0-0-1.nip.example:{port}/hook", queued)
    assert hooks.deliver(*queued[0]) == 1.0
    assert connections == [] and receiver.received == []
    [delivery] = hooks.deliveries("p_rebind", hook["id"])
    assert delivery["last_error"] == UNREACHABLE and delivery["last_status"] is None


def test_a_delivery_connects_to_the_address_it_checked_with_the_name_as_host(
        redis_client, receiver, monkeypatch):
    """The name is looked up once a delivery; a second lookup (which could answer otherwise)
    would fail here. The receiver still sees the name in Host."""
    port = receiver.server.server_address[1]
    dns = FakeDns(monkeypatch, {"push.example": ["127.0.0.1"]})
    queued: list = []
    hooks = Webhooks(redis_client, lambda *args: queued.append(args), allow_http=True)
    original = webhooks_module.resolve

    def resolve_then_forget(host, port, allow_internal=False):
        found = original(host, port, allow_internal)
        dns.table[host] = []  # any later lookup of the name fails
        return found

    monkeypatch.setattr(webhooks_module, "resolve", resolve_then_forget)
    hook = _notify(hooks, "p_pin", f"http://push.example:{port}/hook?x=1", queued)
    assert hooks.deliver(*queued[0]) is None
    assert dns.lookups == {"push.example": 1}
    [got] = receiver.received
    assert got["headers"]["Host"] == f"push.example:{port}"
    assert hooks.deliveries("p_pin", hook["id"])[0]["status"] == "delivered"


def test_a_refused_connection_and_a_silent_receiver_fail_alike(redis_client, monkeypatch):
    """last_error must not work as a port scanner: a closed port and one that never answers
    read the same."""
    monkeypatch.setattr(webhooks_module, "TIMEOUT", 0.3)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts the handshake (backlog) and never answers
    try:
        queued: list = []
        hooks = Webhooks(redis_client, lambda *args: queued.append(args), allow_http=True)
        errors = []
        for player, port in (("p_closed", closed_port), ("p_silent", silent.getsockname()[1])):
            hook = _notify(hooks, player, f"http://127.0.0.1:{port}/hook", queued)
            hooks.deliver(*queued[-1])
            [delivery] = hooks.deliveries(player, hook["id"])
            errors.append((delivery["last_status"], delivery["last_error"]))
        assert errors == [(None, UNREACHABLE)] * 2
    finally:
        silent.close()


def test_the_host_check_reads_names_as_the_resolver_does():
    assert names_internal_host("2130706433") and names_internal_host("0x7f000001")
    assert names_internal_host("LOCALHOST.") and names_internal_host("router.home.arpa")
    assert not names_internal_host("hooks.example.com")
    assert not names_internal_host("134744072")  # 8.8.8.8 spelled as one number
