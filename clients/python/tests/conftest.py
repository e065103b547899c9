"""The integration tests' server: the repository's own API, built when the build is missing
or older than the sources, and started once per test session on a free loopback port with
embedded stores in a temporary DATA_DIR; accounts come from its admin CLI (the same
DATA_DIR)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
ENTRY = REPO / "dist" / "apps" / "api" / "src" / "main.js"


@dataclass(frozen=True)
class Server:
    base_url: str
    data_dir: str
    env: dict[str, str]

    def admin(self, *args: str) -> dict[str, object]:
        """Runs one admin CLI command against the server's DATA_DIR; its one JSON object."""
        done = subprocess.run(
            ["npm", "run", "--silent", "admin", "--", *args],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"admin {' '.join(args)} failed ({done.returncode}): {done.stdout}{done.stderr}")
        result = json.loads(done.stdout)
        assert isinstance(result, dict)
        return result

    def account(self, credit: str) -> "Account":
        created = self.admin("account", "create", "--name", "python-sdk", *(["--credit", credit] if credit else []))
        account = Account(account_id=str(created["account_id"]), api_key=str(created["api_key"]))
        # The server sees what the admin CLI wrote within a second, later on a loaded machine.
        deadline = time.monotonic() + 30
        while httpx.get(f"{self.base_url}/v1/wallet", headers={"Authorization": f"Bearer {account.api_key}"}, timeout=10).status_code == 401:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not see the new account within 30 s")
            time.sleep(0.2)
        return account


@dataclass(frozen=True)
class Account:
    account_id: str
    api_key: str


def _build_is_stale() -> bool:
    """Missing, or older than a source file (the rule of scripts/admin.js)."""
    if not ENTRY.exists():
        return True
    built = ENTRY.stat().st_mtime
    for folder in (REPO / "apps", REPO / "libs"):
        for path in folder.rglob("*"):
            if path.suffix in (".ts", ".json") and "node_modules" not in path.parts and path.stat().st_mtime > built:
                return True
    return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    if _build_is_stale():
        subprocess.run(["npm", "run", "--silent", "build"], cwd=REPO, check=True, timeout=900)
    data_dir = tempfile.mkdtemp(prefix="gensvc-pysdk-")
    port = _free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "DATA_DIR": data_dir,
        "LOG_LEVEL": "warn",
        "LOCAL_SUPPLIER_DELAY_MS": "600",
        "RATE_LIMITS": "off",
    }
    # The test servers' variables of the Node suites must not move these stores elsewhere.
    for name in ("EVENTSTORE_URL", "MONGO_URL", "S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET", "PUBLIC_BASE_URL"):
        env.pop(name, None)
    log = open(Path(data_dir) / "server.log", "wb")
    proc = subprocess.Popen(["node", str(ENTRY)], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}: {(Path(data_dir) / 'server.log').read_text()}")
            try:
                if httpx.get(f"{base_url}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer within 60 s")
            time.sleep(0.2)
        yield Server(base_url=base_url, data_dir=data_dir, env=env)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def account(server: Server) -> Account:
    """An account with 100 CNY."""
    return server.account("100.00")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
