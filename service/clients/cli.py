"""The ``tablestream`` command: serve, worker, selfplay, openapi, audit verify."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

# gevent, answering gunicorn's own refusals (414, 431, 400) in problem+json like the app does.
WORKER_CLASS = "service.runtime.gunicorn_worker.ProblemGeventWorker"

if TYPE_CHECKING:
    from service.runtime.supervisor import Child


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
              help="background worker processes for clocks and quick bots (0: no workers)")
@click.option("--search-workers", type=int, default=1, show_default=True,
              help="worker processes for expert bots' searches (run apart, at a lower priority)")
@click.option("--webhook-workers", type=int, default=1, show_default=True,
              help="worker processes for webhook deliveries")
@click.option("--worker-class", default=lambda: os.environ.get("TABLESTREAM_WORKER_CLASS",
                                                               WORKER_CLASS),
              show_default="$TABLESTREAM_WORKER_CLASS or gevent's",
              help="gunicorn worker class (bench/throughput.py compares them)")
def serve(host: str, port: int, web_workers: int, job_workers: int, search_workers: int,
          webhook_workers: int, worker_class: str) -> None:
    """Start Redis (embedded unless REDIS_URL is set), the API and the workers; Ctrl-C stops all.

    A process that dies is restarted (with backoff) while the others keep serving; `serve` exits
    with status 1 when one cannot be kept up, or when it leaves the embedded Redis running
    because that could not write its append-only file (service/runtime/supervisor.py)."""
    from service.runtime.config import WORKER_CONNECTIONS
    from service.runtime.supervisor import Child, Supervisor, popen

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    env = dict(os.environ)
    children = []
    redis_child = None
    if not env.get("REDIS_URL"):
        redis_child = _embedded_redis_child(env)
        children.append(redis_child)
    metrics_dir = _metrics_dir(env)
    # gevent workers: an open SSE stream is a parked greenlet, not a blocked thread, so 100
    # streams never starve moves (issue 2).
    gunicorn = [sys.executable, "-m", "gunicorn", "--worker-class", worker_class, "--workers",
                str(web_workers), "--worker-connections", str(WORKER_CONNECTIONS),
                "--bind", f"{host}:{port}",
                "--graceful-timeout", "5", "--log-level", "warning",
                # Its heartbeat files too (gunicorn's advice: a tmpfs, never a disk).
                *(["--worker-tmp-dir", str(metrics_dir)] if metrics_dir else []),
                "--config", "python:service.runtime.gunicorn_conf", "service.runtime.wsgi:app"]
    children.append(Child("api (gunicorn)", lambda: popen(gunicorn, env)))
    if job_workers > 0 and _has_workers():
        # One kind of work never waits behind another (issue 23 items 6 and 7): clocks and
        # quick bots, expert searches and webhook deliveries each have their queue and workers.
        for role, count in (("clocks", job_workers), ("search", search_workers),
                            ("webhooks", webhook_workers)):
            children += [_worker_child(role, n, env) for n in range(1, count + 1)]
    supervisor = Supervisor(children)
    supervisor.on_death = lambda _, pid: _forget_metrics(env, pid)
    if redis_child is not None:
        urls = [env["REDIS_URL"]]

        def follow_redis(child: Child) -> None:
            # The dead server's port was taken meanwhile: everyone must follow the new URL.
            if child is redis_child and env["REDIS_URL"] != urls[-1]:
                urls.append(env["REDIS_URL"])
                for other in children[1:]:
                    supervisor.restart_now(other)

        supervisor.on_restart = follow_redis
    signal.signal(signal.SIGINT, supervisor.request_stop)
    signal.signal(signal.SIGTERM, supervisor.request_stop)
    click.echo(f"Tablestream is serving on http://{host}:{port}/v1 (Ctrl-C stops it)")
    try:
        status = supervisor.run()
    finally:
        if metrics_dir is not None:
            import shutil

            shutil.rmtree(metrics_dir, ignore_errors=True)
    sys.exit(status)


def _worker_child(role: str, number: int, env: dict[str, str]) -> Child:
    """A supervised ``python -m workers`` of ``role``, with its clock loop (each role's
    scheduled jobs: clocks, webhook retries)."""
    from service.runtime.supervisor import Child, popen

    argv = [sys.executable, "-m", "workers", "--with-scheduler", "--role", role]
    name = "job worker" if role == "clocks" else f"{role} worker"
    return Child(f"{name} {number}", lambda: popen(argv, env))


def _embedded_redis_child(env: dict[str, str]) -> Child:
    """The embedded Redis, started now (the others need its URL), as a supervised child: a
    restart reuses the data dir, append-only file and (when still free) port, so nothing
    acknowledged is lost and every client reconnects to the same URL."""
    import atexit

    from events import embedded_redis
    from service.runtime.supervisor import Child

    servers = [embedded_redis.start()]
    # The supervisor stops it (or says why it will not): not again at exit, which would only
    # repeat the message.
    atexit.unregister(servers[0].stop)
    env["REDIS_URL"] = servers[0].url
    click.echo(f"Embedded Redis at {servers[0].url} (data in {servers[0].data_dir})")
    if servers[0].process is None:
        logging.getLogger("tablestream.serve").warning(
            "embedded Redis at %s is run by another process; not supervising it", servers[0].url)

    def restart() -> subprocess.Popen[bytes] | None:
        dead = servers[-1]
        server = embedded_redis.start(dead.data_dir, port=dead.port)
        atexit.unregister(server.stop)
        servers[-1] = server
        if server.url != env["REDIS_URL"]:
            env["REDIS_URL"] = server.url
            click.echo(f"Embedded Redis moved to {server.url} (data in {server.data_dir})")
        return server.process

    return Child("embedded redis", restart, stop=lambda _: servers[-1].stop(),
                 running=servers[0].process)


# Where the per-process metrics files go: a RAM-backed tmpfs when the machine has one, never the
# data disk. prometheus-client writes them through mmap, and a write into a file that a full disk
# cannot back is a SIGBUS, which killed the API processes in a loop (issue 23 item 2).
METRICS_PARENTS = ("/dev/shm",)
METRICS_PREFIX = "tablestream-metrics-"


def _metrics_dir(env: dict[str, str]) -> Path | None:
    """One directory where the API processes and workers write their Prometheus values, new for
    this run (counters of an earlier run must not add up with this one's), on /dev/shm (else the
    system temp dir) rather than under $TABLESTREAM_DATA; the one made, for `serve` to remove when
    it stops (None when PROMETHEUS_MULTIPROC_DIR was set: the operator's)."""
    import shutil
    import tempfile

    if env.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    # Before issue 23 they lived in the data dir: on a full disk, removing them frees room.
    shutil.rmtree(Path(env.get("TABLESTREAM_DATA") or "var") / "metrics", ignore_errors=True)
    parent = next((p for p in METRICS_PARENTS if os.path.isdir(p) and os.access(p, os.W_OK)),
                  tempfile.gettempdir())
    _remove_stale_metrics(Path(parent))
    directory = Path(tempfile.mkdtemp(prefix=f"{METRICS_PREFIX}{os.getpid()}-", dir=parent))
    env["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    return directory


def _remove_stale_metrics(parent: Path) -> None:
    """Remove what an earlier `serve` killed outright left in ``parent``: our own directories
    (this user's, named after a pid no longer running), so a RAM-backed tmpfs does not fill up."""
    import shutil

    for entry in parent.glob(f"{METRICS_PREFIX}*-*"):
        try:
            pid = int(entry.name[len(METRICS_PREFIX):].split("-", 1)[0])
            info = entry.lstat()
        except (ValueError, OSError):
            continue
        if info.st_uid != os.getuid() or not entry.is_dir() or entry.is_symlink() \
                or _running(pid):
            continue
        shutil.rmtree(entry, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's
    return True


def _forget_metrics(env: dict[str, str], pid: int) -> None:
    """A killed process's live gauges must stop counting (gunicorn_conf does it for API workers)."""
    if env.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid, env["PROMETHEUS_MULTIPROC_DIR"])


def _has_workers() -> bool:
    import importlib.util

    return importlib.util.find_spec("workers.__main__") is not None


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
    from service.app.accounts import Accounts

    found, token = Accounts(connect(redis_url())).create(name, list(roles))
    click.echo(f"{found['id']} {token}")


@main.group()
def ratings() -> None:
    """The ratings projection (service/app/ratings.py)."""


@ratings.command("rebuild")
def rebuild_ratings() -> None:
    """Compute every rating again from the game streams on $REDIS_URL (or the embedded
    server), in the order the games finished; prints how many rated games count."""
    from service.app.ratings import Ratings
    from workers.jobs import service

    game_service = service()
    click.echo(Ratings(game_service.store.client).rebuild(game_service))


@main.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False), default="-",
              show_default=True)
def openapi(output: str) -> None:
    """Write the OpenAPI document generated from the code."""
    from service.http.openapi import openapi_yaml

    with click.open_file(output, "w") as handle:
        handle.write(openapi_yaml())


from workers.cli import selfplay, worker  # noqa: E402  (workers' commands join the group)

main.add_command(worker)
main.add_command(selfplay)

from service.clients.audit_cli import audit  # noqa: E402  (offline: imports no Redis or Flask)

main.add_command(audit)

from service.clients.play_cli import play  # noqa: E402  (standard library only)

main.add_command(play)


if __name__ == "__main__":
    main()
