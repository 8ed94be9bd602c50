"""A real 3-master Redis Cluster from the bundled redis-server, for tests and benches (issue 13).

Three masters, each holding a third of the 16,384 slots, so keys of different hash slots live on
different nodes and a multi-key command, script, transaction or XREAD across slots fails with
CROSSSLOT as it would in production (a one-node cluster holding every slot hides that).
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import redis

from events.embedded_redis import _free_port, server_binary

SLOTS = 16384
START_TIMEOUT = 60.0  # s: generous, the machine running the suite may be busy


class LocalCluster:
    """A running cluster of ``len(ports)`` masters on 127.0.0.1; ``stop`` ends every node."""

    def __init__(self, ports: list[int], processes: list[subprocess.Popen[bytes]]):
        self.ports = ports
        self.processes = processes

    @property
    def url(self) -> str:
        """The URL of the first node: cluster clients discover the others from it."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def node(self, index: int) -> redis.Redis:
        """A plain client on one node (for CLUSTER commands and checks)."""
        return _admin(self.ports[index])

    def stop(self) -> None:
        """Kill every node (test data: nothing to persist)."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_cluster(directory: Path, masters: int = 3) -> LocalCluster:
    """Start ``masters`` nodes under ``directory``, split the slots into as many contiguous
    ranges, join them (CLUSTER MEET) and wait until every node says cluster_state:ok."""
    processes: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    cluster = LocalCluster(ports, processes)
    try:
        for index in range(masters):
            port = cluster_port(exclude=ports)
            node_dir = directory / f"node-{index}"
            node_dir.mkdir(parents=True, exist_ok=True)
            with open(node_dir / "redis.log", "ab") as log:
                processes.append(subprocess.Popen(
                    [str(server_binary()), "--port", str(port), "--bind", "127.0.0.1",
                     "--dir", str(node_dir), "--daemonize", "no", "--cluster-enabled", "yes",
                     "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
                     "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                     "--logfile", ""],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT))
            ports.append(port)
        deadline = time.monotonic() + START_TIMEOUT
        admins = [_admin(port) for port in ports]
        for process, admin in zip(processes, admins, strict=True):
            _wait_for(lambda a=admin, p=process: _answers(a, p), deadline,
                      "a cluster node did not start")
        bounds = [SLOTS * i // masters for i in range(masters + 1)]
        for index, admin in enumerate(admins):
            # Distinct epochs before meeting: no collision for the cluster to resolve.
            admin.execute_command("CLUSTER", "SET-CONFIG-EPOCH", index + 1)
            # Redis 6.2 (the bundled server) has no ADDSLOTSRANGE.
            admin.execute_command("CLUSTER", "ADDSLOTS", *range(bounds[index], bounds[index + 1]))
        for port in ports[1:]:
            admins[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        for admin in admins:
            _wait_for(lambda a=admin: _ready(a, masters), deadline,
                      "the cluster did not reach cluster_state:ok on every node")
        for admin in admins:
            admin.close()
        return cluster
    except BaseException:
        cluster.stop()
        raise


def cluster_port(exclude: Sequence[int] = ()) -> int:
    """A free port whose cluster bus port (+10000) is a valid, free port too."""
    while True:
        port = _free_port()
        if port + 10000 > 65535 or port in exclude or port + 10000 in exclude:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


def _admin(port: int) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True, socket_timeout=5,
                       socket_connect_timeout=2)


def _answers(admin: redis.Redis, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        raise RuntimeError(f"a cluster node exited with {process.returncode}")
    try:
        return bool(admin.ping())
    except redis.ConnectionError:
        return False


def _ready(admin: redis.Redis, masters: int) -> bool:
    """Every node known, every slot assigned, state ok, as this node sees it."""
    info = admin.cluster("info")
    return (info["cluster_state"] == "ok" and int(info["cluster_known_nodes"]) == masters
            and int(info["cluster_slots_ok"]) == SLOTS)


def _wait_for(check: Callable[[], bool], deadline: float, message: str) -> None:
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(message)
        time.sleep(0.05)
