"""The client against a real server (see conftest.py): run, upload, download, cancel,
wallet, lists and errors, sync and async."""

from __future__ import annotations

import hashlib
import io
import struct
import uuid
import zlib
from decimal import Decimal
from pathlib import Path

import anyio
import pytest

import gensvc
from gensvc import AsyncGensvc, Gensvc
from gensvc.models import Task

from .conftest import Account, Server

pytestmark = pytest.mark.integration


def png(width: int = 3, height: int = 2) -> bytes:
    """A small valid PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


@pytest.fixture
def client(server: Server, account: Account) -> Gensvc:
    with Gensvc(account.api_key, base_url=server.base_url) as c:
        yield c  # type: ignore[misc]


def test_run_returns_the_succeeded_task_and_its_output_downloads(client: Gensvc, tmp_path: Path) -> None:
    before = client.wallet.get()
    quotes: list[gensvc.models.Quote] = []
    task = client.run("image-studio-v2", {"prompt": "a red fox"}, options={"size": "512x512"}, title="Fox", on_quote=quotes.append, max_amount="1.00", poll_interval=0.2)
    assert task.status == "succeeded" and task.settlement_status == "settled"
    assert task.title == "Fox" and task.quote_id == quotes[0].quote_id
    assert task.charged_amount == quotes[0].estimated_amount
    assert task.output is not None and len(task.output.asset_ids) == 1
    after = client.wallet.get()
    assert Decimal(before.balance) - Decimal(after.balance) == Decimal(task.charged_amount)
    assert Decimal(after.balance) == Decimal(after.available) + Decimal(after.reserved)

    progress: list[tuple[int, int]] = []
    path = client.assets.download(task.output.asset_ids[0], tmp_path, on_progress=lambda a, b: progress.append((a, b)))
    asset = client.assets.get(task.output.asset_ids[0])
    data = path.read_bytes()
    assert path.parent == tmp_path and path.name == asset.download_name
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) == asset.size
    assert hashlib.sha256(data).hexdigest() == asset.checksum
    assert progress[-1] == (asset.size, asset.size)
    assert list(tmp_path.iterdir()) == [path]  # no part file left


def test_run_refuses_a_quote_above_the_limit_and_reserves_nothing(client: Gensvc) -> None:
    before = client.wallet.get()
    count = len(list(client.tasks.iter()))
    with pytest.raises(gensvc.QuoteAboveLimitError) as caught:
        client.run("image-studio-v2", {"prompt": "many foxes"}, options={"size": "1024x1024", "count": 4}, max_amount="0.01")
    assert Decimal(caught.value.quote.max_amount) > Decimal("0.01")
    assert client.wallet.get() == before
    assert len(list(client.tasks.iter())) == count


def test_a_retried_creation_with_the_same_key_is_the_same_task(client: Gensvc) -> None:
    quote = client.quotes.create("text-writer-lite", {"prompt": "twice"})
    first = client.tasks.create(quote.quote_id, idempotency_key="py-same-key-0001")
    again = client.tasks.create(quote.quote_id, idempotency_key="py-same-key-0001")
    assert again.id == first.id
    with pytest.raises(gensvc.ConflictError) as caught:
        client.tasks.create(quote.quote_id, idempotency_key="py-other-key-0002")
    assert caught.value.code == "QUOTE_ALREADY_USED" and caught.value.status == 409
    assert client.tasks.wait(first.id, poll_interval=0.2).status == "succeeded"


def test_cancel_of_a_queued_task_releases_the_reservation(client: Gensvc) -> None:
    before = client.wallet.get()
    quote = client.quotes.create("image-studio-v2", {"prompt": "cancel me"})
    task = client.tasks.create(quote.quote_id)
    assert client.wallet.get().reserved != before.reserved
    result = client.tasks.cancel(task.id)
    assert result.task_id == task.id and result.cancellation.status == "confirmed"
    done = client.tasks.wait(task.id, poll_interval=0.2)
    assert done.status == "canceled" and done.settlement_status == "released" and done.charged_amount in (None, "0.000000")
    assert client.wallet.get() == before
    with pytest.raises(gensvc.TaskCanceledError):
        raise gensvc.TaskCanceledError(done)
    # a repeat on the finished task is harmless
    assert client.tasks.cancel(task.id).cancellation.status in ("confirmed", "not_needed")


def test_uploads_from_a_path_bytes_and_a_file_object(client: Gensvc, tmp_path: Path) -> None:
    image = png()
    file = tmp_path / "red.png"
    file.write_bytes(image)
    progress: list[tuple[int, int]] = []
    by_path = client.uploads.upload(file, on_progress=lambda a, b: progress.append((a, b)))
    assert by_path.status == "completed" and by_path.asset_id and by_path.mime == "image/png" and by_path.name == "red.png"
    assert by_path.checksum == hashlib.sha256(image).hexdigest() and by_path.size == len(image)
    assert progress[0] == (0, len(image)) and progress[-1] == (len(image), len(image))

    text = client.uploads.upload("héllo\n".encode(), name="note.txt")
    assert text.mime == "text/plain" and text.status == "completed"
    doc = client.uploads.upload(io.BytesIO(b'{"a": [1, 2]}'), name="doc.json")
    assert doc.mime == "application/json" and doc.status == "completed"
    assert client.assets.read(doc.asset_id or "") == b'{"a": [1, 2]}'

    # the uploaded asset is usable as input
    task = client.run("image-studio-v2", {"prompt": "like this", "asset_ids": [by_path.asset_id]}, poll_interval=0.2)
    assert task.status == "succeeded"


def test_an_upload_resumed_with_the_same_key_is_not_sent_twice(client: Gensvc) -> None:
    data = png(5, 5)
    key = "py-upload-resume-0001"
    local = hashlib.sha256(data).hexdigest()
    # a first process prepared and sent the bytes, then stopped before complete
    prepared = client.uploads.prepare(name="r.png", mime="image/png", size=len(data), checksum=local, idempotency_key=key)
    assert prepared.upload is not None
    client._request("PUT", prepared.upload.url, content=data, headers=prepared.upload.headers, auth=False)
    assert client.uploads.get(prepared.upload_id).status == "uploaded"
    sent: list[int] = []
    resumed = client.uploads.upload(data, name="r.png", idempotency_key=key, on_progress=lambda a, b: sent.append(a))
    assert resumed.upload_id == prepared.upload_id and resumed.status == "completed"
    assert sent == []  # the bytes were not sent again
    again = client.uploads.upload(data, name="r.png", idempotency_key=key)
    assert again.asset_id == resumed.asset_id
    with pytest.raises(gensvc.ConflictError) as caught:
        client.uploads.upload(png(6, 6), name="r.png", idempotency_key=key)
    assert caught.value.code == "IDEMPOTENCY_CONFLICT"


def test_a_download_continues_a_partial_file_and_recovers_from_wrong_bytes(client: Gensvc, tmp_path: Path) -> None:
    data = png(40, 40)
    asset = client.assets.get(client.uploads.upload(data, name="big.png").asset_id or "")
    dest = tmp_path / "copy.png"
    part = dest.with_name(f"copy.png.{asset.checksum[:16]}.part")
    part.write_bytes(data[:50])
    seen: list[int] = []
    assert client.assets.download(asset.id, dest, on_progress=lambda a, b: seen.append(a)) == dest
    assert dest.read_bytes() == data and not part.exists()
    assert seen[0] == 50  # it went on from the partial file (Range), not from the start

    part.write_bytes(b"X" * 50)  # a damaged partial file: found out, then fetched whole
    seen.clear()
    assert client.assets.download(asset.id, dest, on_progress=lambda a, b: seen.append(a)) == dest
    assert dest.read_bytes() == data and not part.exists()
    assert seen[0] == 50 and 0 in seen


def test_lists_iterate_every_task_and_bill_once(server: Server) -> None:
    fresh = server.account("5.00")
    with Gensvc(fresh.api_key, base_url=server.base_url) as c:
        created = [c.run("text-writer-lite", {"prompt": f"list {i}"}, poll_interval=0.2) for i in range(3)]
        page = c.tasks.list(limit=2)
        assert len(page.data) == 2 and page.has_more and page.page == 1
        tasks = list(c.tasks.iter(limit=1))
        assert [t.id for t in tasks] == [t.id for t in reversed(created)]  # newest first
        assert [t.id for t in c.tasks.iter(status="succeeded", modality="text", limit=2)] == [t.id for t in tasks]
        assert list(c.tasks.iter(modality="image")) == []
        bills = list(c.billing.iter(limit=2))
        assert sorted(b.task_id for b in bills) == sorted(t.id for t in created)
        assert all(b.settlement_status == "settled" and b.charged_amount == "0.020000" for b in bills)
        wallet = c.wallet.get()
        assert wallet.balance == "4.940000" and wallet.reserved == "0.000000" and wallet.available == "4.940000"


def test_errors_carry_code_message_request_id_and_status(server: Server, client: Gensvc) -> None:
    with pytest.raises(gensvc.NotFoundError) as nf:
        client.tasks.get("task_doesnotexist")
    assert nf.value.status == 404 and nf.value.code == "NOT_FOUND" and nf.value.request_id and nf.value.message

    with pytest.raises(gensvc.BadRequestError) as bad:
        client.quotes.create("text-writer-lite", {"prompt": "x", "colour": "red"})
    assert bad.value.code == "VALIDATION_ERROR" and "colour" in bad.value.message

    with Gensvc("gsk_not_a_key", base_url=server.base_url) as anonymous:
        with pytest.raises(gensvc.AuthenticationError) as auth:
            anonymous.wallet.get()
        assert auth.value.status == 401 and auth.value.code == "UNAUTHORIZED"
        assert "image-studio-v2" in [m.id for m in anonymous.models.list()]  # the catalogue needs no key
        assert anonymous.models.get("image-studio-v2").input_schema["properties"]["prompt"]
        assert "image.generate" in anonymous.capabilities() and anonymous.prices()[0].currency == "CNY"

    poor = server.account("")
    with Gensvc(poor.api_key, base_url=server.base_url) as c:
        with pytest.raises(gensvc.InsufficientFundsError) as funds:
            c.run("text-writer-lite", {"prompt": "no money"})
        assert funds.value.code == "INSUFFICIENT_FUNDS" and funds.value.status == 402
        assert c.wallet.get().reserved == "0.000000" and list(c.tasks.iter()) == []


def test_environment_configures_the_client(server: Server, account: Account, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENSVC_API_KEY", account.api_key)
    monkeypatch.setenv("GENSVC_BASE_URL", server.base_url + "/v1")
    with Gensvc() as c:
        assert c.wallet.get().currency == "CNY"


def test_the_async_client_runs_uploads_and_lists(server: Server, account: Account, tmp_path: Path) -> None:
    async def main() -> tuple[Task, Path, list[str]]:
        async with AsyncGensvc(account.api_key, base_url=server.base_url) as c:
            upload = await c.uploads.upload(png(), name="a.png")
            assert upload.status == "completed"
            task = await c.run("speech-tts-std", {"text": "hello there"}, poll_interval=0.2)
            path = await c.assets.download((task.output.asset_ids if task.output else [""])[0], tmp_path / "speech.wav")
            ids = [t.id async for t in c.tasks.iter(limit=2)]
            assert "speech.synthesize" in await c.capabilities()
            assert (await c.assets.read(upload.asset_id or ""))[:8] == b"\x89PNG\r\n\x1a\n"
            assert [b.task_id async for b in c.billing.iter()][0] == task.id
            with pytest.raises(gensvc.NotFoundError):
                await c.assets.get("ast_missing")
            return task, path, ids

    task, path, ids = anyio.run(main)
    assert task.status == "succeeded" and task.modality == "audio"
    assert path.read_bytes()[:4] == b"RIFF" and path.read_bytes()[8:12] == b"WAVE"
    assert ids[0] == task.id and len(ids) == len(set(ids))


def test_a_cloned_voice_is_listed_used_and_deleted(client: Gensvc) -> None:
    speech = client.run("speech-tts-std", {"text": "a sample of my voice"}, poll_interval=0.2)
    sample = (speech.output.asset_ids if speech.output else [])[0]
    cloned = client.run("voice-clone-std", {"asset_ids": [sample], "name": "Mine", "consent_attested": True}, poll_interval=0.2)
    voice_id = cloned.output.voice_id if cloned.output else None
    assert voice_id
    voice = client.voices.get(voice_id)
    assert voice.name == "Mine" and voice.status == "active" and voice.source_task_id == cloned.id
    assert voice_id in [v.id for v in client.voices.list().data]
    spoken = client.run("speech-tts-std", {"text": "said in my voice", "voice_id": voice_id}, poll_interval=0.2)
    assert spoken.status == "succeeded"
    deleting = client.voices.delete(voice_id)
    assert deleting.id == voice_id and deleting.deletion.status in ("queued", "completed")


def test_run_again_with_the_same_key_follows_the_same_task_and_charges_once(client: Gensvc) -> None:
    key = f"py-resume-{uuid.uuid4().hex}"
    first = client.run("text-writer-lite", {"prompt": "once"}, idempotency_key=key)
    balance = client.wallet.get().balance
    again = client.run("text-writer-lite", {"prompt": "once"}, idempotency_key=key)
    assert again.id == first.id and again.status == "succeeded"
    assert client.wallet.get().balance == balance


def test_webhook_endpoints_are_managed_and_assets_listed(client: Gensvc) -> None:
    created = client.webhook_endpoints.create("https://hooks.example.com/gensvc", ["task.succeeded"], description="py")
    assert created.secret and created.secret.startswith("whsec_") and created.status == "enabled"
    assert created.id in [e.id for e in client.webhook_endpoints.iter()]
    assert client.webhook_endpoints.get(created.id).secret is None  # shown only at creation and rotation
    rotated = client.webhook_endpoints.rotate_secret(created.id)
    assert rotated.secret and rotated.secret != created.secret
    assert list(client.webhook_endpoints.iter_deliveries(created.id)) == []
    assert client.webhook_endpoints.delete(created.id).deleted is True
    with pytest.raises(gensvc.NotFoundError):
        client.webhook_endpoints.get(created.id)

    up = client.uploads.upload(png(), name="listed.png")
    listed = list(client.assets.iter(q="listed"))
    assert [(a.id, a.source) for a in listed] == [(up.asset_id, "upload")]
    assert client.request("GET", f"/v1/assets/{up.asset_id}")["id"] == up.asset_id
