"""The ``tablestream`` command: serve, worker, selfplay, openapi, audit verify."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import click


@click.group()
def main() -> None:
    """Tablestream: turn-based games over a REST API, event-sourced on Redis Streams."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=lambda: int(os.environ.get("PORT", "8000")),
              show_default="$PORT or 8000")
@click.option("--web-workers", type=int, default=2, show_default=True,
              help="gunicorn processes (gevent: each serves many SSE streams at once)")
@click.option("--job-workers", type=int, default=1, show_default=True,
              help="background worker processes for bots and clocks")
def serve(host: str, port: int, web_workers: int, job_workers: int) -> None:
    """Start Redis (embedded unless REDIS_URL is set), the API and the workers; Ctrl-C stops all."""
    from events import embedded_redis

    redis_server = None
    env = dict(os.environ)
    if not env.get("REDIS_URL"):
        redis_server = embedded_redis.start()
        env["REDIS_URL"] = redis_server.url
        click.echo(f"Embedded Redis at {redis_server.url} (data in {redis_server.data_dir})")
    _metrics_dir(env)
    # gevent workers: an open SSE stream is a parked greenlet, not a blocked thread, so 100
    # streams never starve moves (issue 2).
    children = [subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--worker-class", "gevent", "--workers",
         str(web_workers), "--worker-connections", "2000", "--bind", f"{host}:{port}",
         "--graceful-timeout", "5", "--log-level", "warning",
         "--config", "python:service.gunicorn_conf", "service.wsgi:app"], env=env,
        preexec_fn=_detach_from_terminal)]
    if job_workers > 0 and _has_workers():
        children += [subprocess.Popen([sys.executable, "-m", "workers", "--with-scheduler"],
                                      env=env, preexec_fn=_detach_from_terminal)
                     for _ in range(job_workers)]
    click.echo(f"Tablestream is serving on http://{host}:{port}/v1 (Ctrl-C stops it)")
    _supervise(children)
    if redis_server is not None:
        redis_server.stop()


def _metrics_dir(env: dict[str, str]) -> None:
    """One directory where the API processes and workers write their Prometheus values, emptied
    at start so counters of an earlier run do not add up with this one's."""
    import shutil
    from pathlib import Path

    if env.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    directory = Path(env.get("TABLESTREAM_DATA", "var")) / "metrics"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    env["PROMETHEUS_MULTIPROC_DIR"] = str(directory.resolve())


def _detach_from_terminal() -> None:
    """In a child: leave the terminal's process group, so Ctrl-C reaches only `serve`, which
    then stops each child cleanly; and die with `serve` if it is killed outright (Linux)."""
    os.setpgid(0, 0)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _has_workers() -> bool:
    import importlib.util

    return importlib.util.find_spec("workers.__main__") is not None


def _supervise(children: list[subprocess.Popen]) -> None:
    """Wait until Ctrl-C/SIGTERM or a child dies, then stop every child."""
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopping and all(child.poll() is None for child in children):
        time.sleep(0.2)
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + 10
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()


@main.group()
def player() -> None:
    """Manage players (for operators: the API creates ordinary players itself)."""


@player.command("create")
@click.argument("name")
@click.option("--role", "roles", multiple=True, type=click.Choice(["auditor"]),
              help="auditor: may read any game's full log and seed before it ends")
def create_player(name: str, roles: tuple[str, ...]) -> None:
    """Create a player on $REDIS_URL (or the embedded server) and print its bearer token."""
    from events.embedded_redis import redis_url
    from events.redis_store import connect
    from service.accounts import Accounts

    found, token = Accounts(connect(redis_url())).create(name, list(roles))
    click.echo(f"{found['id']} {token}")


@main.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False), default="-",
              show_default=True)
def openapi(output: str) -> None:
    """Write the OpenAPI document generated from the code."""
    from service.openapi import openapi_yaml

    with click.open_file(output, "w") as handle:
        handle.write(openapi_yaml())


from workers.cli import selfplay, worker  # noqa: E402  (workers' commands join the group)

main.add_command(worker)
main.add_command(selfplay)

from service.audit_cli import audit  # noqa: E402  (offline: imports no Redis or Flask)

main.add_command(audit)

from service.play_cli import play  # noqa: E402  (standard library only)

main.add_command(play)


if __name__ == "__main__":
    main()
