"""A throwaway PostgreSQL cluster for the test session: the one exported by ``pg_virtualenv`` (PGHOST …)
when there is one, else one made here with the server binaries (initdb, pg_ctl) in a temporary folder.

As root, initdb refuses to run: the cluster then belongs to the ``postgres`` user (runuser), its folder
and socket directory chowned to it. It listens on a Unix socket only, with fsync off (a test cluster).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def server_bin() -> Path | None:
    """The newest PostgreSQL server's bin folder on this machine, or None."""
    found = sorted(glob.glob(_BIN_GLOB), key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0)
    for folder in reversed(found):
        if (Path(folder) / "initdb").exists():
            return Path(folder)
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def missing_reason() -> str | None:
    """Why PostgreSQL tests cannot run here, or None when they can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'hippo-tui[postgres]')"
    if os.environ.get("PGHOST") and os.environ.get("PGPORT"):
        return None
    if server_bin() is None:
        return "the PostgreSQL server binaries (initdb) are not on this machine"
    if os.geteuid() == 0 and not _has_user("postgres"):
        return "running as root and there is no 'postgres' user to own a test cluster"
    return None


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@dataclass
class Cluster:
    """A running cluster; ``url(db)`` names one of its databases."""

    host: str  # a socket folder or a host name
    port: int
    user: str
    password: str | None
    ctl: list[str] | None  # pg_ctl -D … (as its owner), None when the cluster is not ours
    log: str = ""

    def url(self, database: str, user: str | None = None, password: str | None = None) -> str:
        who = quote(user or self.user)
        secret = password if user else self.password
        if secret:
            who += ":" + quote(secret)
        if self.host.startswith("/"):
            return f"postgresql://{who}@/{database}?host={quote(self.host)}&port={self.port}"
        return f"postgresql://{who}@{self.host}:{self.port}/{database}"

    def close(self) -> None:
        if self.ctl:
            subprocess.run([*self.ctl, "-m", "immediate", "-w", "stop"], check=False, capture_output=True, timeout=60)


def start(*, durable: bool = False) -> Cluster:
    """The exported cluster, or a new one (stopped by ``Cluster.close``); ``durable`` keeps fsync on (for
    benchmarks that compare commit costs with SQLite's synchronous=FULL)."""
    env = os.environ
    if env.get("PGHOST") and env.get("PGPORT"):
        return Cluster(env["PGHOST"], int(env["PGPORT"]), env.get("PGUSER", "postgres"), env.get("PGPASSWORD"), None)
    bin_dir = server_bin()
    assert bin_dir is not None
    root = Path(tempfile.mkdtemp(prefix="hippo-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        for p in (root, sock):
            os.chown(p, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    run = [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
           "--no-sync", "--locale=C.UTF-8"]  # fmt: skip
    subprocess.run(run, check=True, capture_output=True, timeout=120)
    # No autovacuum: a worker on the template database makes every CREATE DATABASE … TEMPLATE wait ~1 s.
    options = f"-k {sock} -c listen_addresses='' -c autovacuum=off"
    if not durable:
        options += " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
    ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data)]
    subprocess.run([*ctl, "-o", options, "-l", str(root / "log"), "-w", "start"], check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    return Cluster(str(sock), 5432, "postgres", None, ctl, str(root / "log"))


def restart(cluster: Cluster) -> None:
    """Stop the server at once and start it again (the pool's connections all break)."""
    assert cluster.ctl is not None, "only a cluster the tests started can be restarted"
    # The server's output to its log file: a pipe it inherited would keep this call waiting for ever.
    subprocess.run([*cluster.ctl, "-l", cluster.log, "-m", "immediate", "-w", "restart"], check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)  # fmt: skip
