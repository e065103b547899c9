"""Retries, backoff, Retry-After, idempotency keys and error mapping, against an
httpx.MockTransport standing in for the network."""

from __future__ import annotations

import json
from typing import Callable, Iterator

import anyio
import httpx
import pytest

import gensvc
from gensvc import AsyncGensvc, Gensvc

BASE = "http://gensvc.test"
TASK = {
    "id": "task_1", "status": "queued", "model": "m", "resolved_model": "m-1", "capability": "c", "modality": "text",
    "title": None, "quote_id": "qt_1", "price_version": "v", "currency": "CNY", "max_amount": "0.020000",
    "charged_amount": None, "settlement_status": "reserved",
    "cancellation": {"status": "none", "requested_at": None, "error_code": None},
    "output": None, "error": None, "created_at": "2026-11-25T00:00:00Z", "updated_at": "2026-11-25T00:00:00Z", "completed_at": None,
}
WALLET = {"currency": "CNY", "balance": "1.000000", "reserved": "0.000000", "available": "1.000000"}


def error(status: int, code: str, request_id: str = "req_abc", headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} happened", "request_id": request_id}}
    return httpx.Response(status, json=body, headers={"X-Request-Id": request_id, **(headers or {})})


class Recorder:
    """Answers requests one after the other from a script; records requests and sleeps."""

    def __init__(self, *answers: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if callable(answer) and not isinstance(answer, httpx.Response):
            return answer(request)
        return answer

    def client(self, **kwargs: object) -> Gensvc:
        c = Gensvc("gsk_test", base_url=BASE, transport=httpx.MockTransport(self), **kwargs)  # type: ignore[arg-type]
        c._sleep = self.sleeps.append
        return c


def test_a_5xx_then_success_is_retried_with_growing_backoff() -> None:
    rec = Recorder(error(503, "INTERNAL"), error(502, "INTERNAL"), httpx.Response(200, json=WALLET))
    wallet = rec.client(initial_backoff=1.0, max_backoff=8.0).wallet.get()
    assert wallet.available == "1.000000"
    assert len(rec.requests) == 3
    assert 0.5 <= rec.sleeps[0] <= 1.0 and 1.0 <= rec.sleeps[1] <= 2.0


def test_retry_after_sets_the_delay() -> None:
    rec = Recorder(error(429, "RATE_LIMITED", headers={"Retry-After": "7"}), httpx.Response(200, json=WALLET))
    rec.client().wallet.get()
    assert rec.sleeps == [7.0]


def test_a_retry_after_beyond_a_minute_is_raised_at_once() -> None:
    rec = Recorder(error(429, "RATE_LIMITED", headers={"Retry-After": "3600"}))
    with pytest.raises(gensvc.RateLimitError) as caught:
        rec.client().wallet.get()
    assert caught.value.retry_after == 3600.0 and rec.sleeps == []


def test_retries_give_up_after_max_retries_with_the_last_error() -> None:
    rec = Recorder(*[error(500, "INTERNAL", request_id=f"req_{i}") for i in range(3)])
    with pytest.raises(gensvc.InternalServerError) as caught:
        rec.client(max_retries=2).wallet.get()
    assert len(rec.requests) == 3 and caught.value.request_id == "req_2" and caught.value.code == "INTERNAL"


def test_task_creation_retries_keep_the_same_idempotency_key() -> None:
    rec = Recorder(httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), error(500, "INTERNAL"), httpx.Response(202, json=TASK))
    task = rec.client().tasks.create("qt_1", title="t")
    assert task.id == "task_1"
    keys = {r.headers["Idempotency-Key"] for r in rec.requests}
    assert len(rec.requests) == 4 and len(keys) == 1 and 8 <= len(keys.pop()) <= 150
    assert all(json.loads(r.content) == {"quote_id": "qt_1", "title": "t"} for r in rec.requests)


def test_two_creations_get_two_keys_and_a_given_key_is_used() -> None:
    rec = Recorder(httpx.Response(202, json=TASK), httpx.Response(202, json=TASK), httpx.Response(202, json=TASK))
    c = rec.client()
    c.tasks.create("qt_1")
    c.tasks.create("qt_2")
    c.tasks.create("qt_3", idempotency_key="mine-00000001")
    keys = [r.headers["Idempotency-Key"] for r in rec.requests]
    assert keys[0] != keys[1] and keys[2] == "mine-00000001"


def test_upload_prepare_retries_keep_the_same_idempotency_key() -> None:
    upload = {"upload_id": "up_1", "status": "completed", "name": "a.txt", "mime": "text/plain", "size": 2, "checksum": "0" * 64,
              "expires_at": "2026-11-25T00:15:00Z", "asset_id": "ast_1", "error_code": None}
    rec = Recorder(httpx.RemoteProtocolError("dropped"), error(503, "INTERNAL"), httpx.Response(200, json=upload))
    result = rec.client().uploads.upload(b"hi", name="a.txt")
    bodies = [json.loads(r.content) for r in rec.requests]
    assert result.asset_id == "ast_1" and len(bodies) == 3
    assert len({b["idempotency_key"] for b in bodies}) == 1
    assert bodies[0]["mime"] == "text/plain" and bodies[0]["size"] == 2 and bodies[0]["checksum"] == "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"


def test_a_direct_upload_is_not_repeated_after_it_may_have_arrived() -> None:
    rec = Recorder(error(500, "INTERNAL"))
    with pytest.raises(gensvc.InternalServerError):
        rec.client().uploads.direct(b"hi", name="a.txt")
    assert len(rec.requests) == 1
    rec = Recorder(httpx.ReadTimeout("slow"))
    with pytest.raises(gensvc.APITimeoutError):
        rec.client().uploads.direct(b"hi", name="a.txt")
    assert len(rec.requests) == 1


def test_a_direct_upload_is_repeated_when_nothing_was_sent_or_it_was_refused_with_429() -> None:
    asset = {"id": "ast_1", "name": "a.txt", "mime": "text/plain", "size": 2, "checksum": "0" * 64, "created_at": "2026-11-25T00:00:00Z",
             "url": f"{BASE}/u", "download_url": f"{BASE}/d", "download_name": "a.txt", "links_expire_at": "2026-11-25T01:00:00Z"}
    rec = Recorder(httpx.ConnectError("refused"), error(429, "UPLOAD_BUSY", headers={"Retry-After": "1"}), httpx.Response(201, json=asset))
    assert rec.client().uploads.direct(b"hi", name="a b.txt").id == "ast_1"
    assert len(rec.requests) == 3 and rec.requests[-1].headers["X-Filename"] == "a%20b.txt" and rec.requests[-1].content == b"hi"


def test_network_errors_after_the_retries_are_connection_errors() -> None:
    rec = Recorder(*[httpx.ConnectError("refused")] * 4)
    with pytest.raises(gensvc.APIConnectionError) as caught:
        rec.client().wallet.get()
    assert len(rec.requests) == 4 and isinstance(caught.value.__cause__, httpx.ConnectError)


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "VALIDATION_ERROR", gensvc.BadRequestError),
        (401, "UNAUTHORIZED", gensvc.AuthenticationError),
        (402, "INSUFFICIENT_FUNDS", gensvc.InsufficientFundsError),
        (403, "INSUFFICIENT_SCOPE", gensvc.PermissionDeniedError),
        (404, "NOT_FOUND", gensvc.NotFoundError),
        (409, "QUOTE_EXPIRED", gensvc.ConflictError),
        (410, "UPLOAD_EXPIRED", gensvc.GoneError),
        (413, "PAYLOAD_TOO_LARGE", gensvc.PayloadTooLargeError),
        (415, "UNSUPPORTED_MEDIA_TYPE", gensvc.UnsupportedMediaTypeError),
        (416, "RANGE_NOT_SATISFIABLE", gensvc.RangeNotSatisfiableError),
        (422, "PRICE_UNAVAILABLE", gensvc.UnprocessableEntityError),
        (431, "HEADERS_TOO_LARGE", gensvc.RequestHeadersTooLargeError),
    ],
)
def test_error_objects_map_to_typed_exceptions(status: int, code: str, cls: type[gensvc.APIError]) -> None:
    rec = Recorder(error(status, code, request_id="req_xyz"))
    with pytest.raises(cls) as caught:
        rec.client().wallet.get()
    e = caught.value
    assert (e.status, e.code, e.message, e.request_id) == (status, code, f"{code} happened", "req_xyz")
    assert isinstance(e, gensvc.APIError) and len(rec.requests) == 1  # a 4xx is not retried


def test_an_error_without_an_error_object_keeps_status_and_request_id() -> None:
    rec = Recorder(*[httpx.Response(502, text="<html>bad gateway</html>", headers={"X-Request-Id": "req_gw"})] * 4)
    with pytest.raises(gensvc.InternalServerError) as caught:
        rec.client().wallet.get()
    assert caught.value.code == "HTTP_502" and caught.value.request_id == "req_gw" and "bad gateway" in caught.value.message


def test_auth_and_base_url_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=WALLET)

    monkeypatch.setenv("GENSVC_API_KEY", "gsk_from_env")
    monkeypatch.setenv("GENSVC_BASE_URL", "https://api.example.test/v1/")
    Gensvc(transport=httpx.MockTransport(handler)).wallet.get()
    Gensvc("gsk_argument", base_url="http://other.test", transport=httpx.MockTransport(handler)).wallet.get()
    assert str(seen[0].url) == "https://api.example.test/v1/wallet" and seen[0].headers["Authorization"] == "Bearer gsk_from_env"
    assert str(seen[1].url) == "http://other.test/v1/wallet" and seen[1].headers["Authorization"] == "Bearer gsk_argument"
    assert seen[0].headers["User-Agent"].startswith("gensvc-python/")


def test_wait_polls_until_a_terminal_status_and_times_out() -> None:
    unsettled = {**TASK, "status": "succeeded", "output": {"asset_ids": ["ast_1"]}}
    done = {**unsettled, "settlement_status": "settled", "charged_amount": "0.020000"}
    rec = Recorder(*(httpx.Response(200, json=t) for t in (TASK, {**TASK, "status": "running"}, unsettled, done)))
    task = rec.client().tasks.wait("task_1", poll_interval=0.1, max_poll_interval=0.15)
    assert task.status == "succeeded" and task.output is not None and task.output.asset_ids == ["ast_1"]
    assert task.charged_amount == "0.020000"  # it waited for the settlement too
    assert rec.sleeps == [0.1, pytest.approx(0.15), 0.1]

    rec = Recorder(httpx.Response(200, json=unsettled))
    assert rec.client().tasks.wait("task_1", timeout=0.0).settlement_status == "reserved"  # finished: no timeout error

    rec = Recorder(*[httpx.Response(200, json=TASK)] * 3)
    c = rec.client()
    with pytest.raises(gensvc.WaitTimeoutError) as caught:
        c.tasks.wait("task_1", timeout=0.0)
    assert caught.value.task.status == "queued"


def test_run_raises_for_a_failed_task_with_its_error() -> None:
    quote = {"quote_id": "qt_1", "model": "m", "resolved_model": "m-1", "currency": "CNY", "pricing_mode": "fixed", "price_version": "v",
             "estimated_amount": "0.020000", "max_amount": "0.020000", "quantity": 1, "unit": "request", "unit_price": "0.020000",
             "expires_at": "2026-11-25T00:15:00Z"}
    failed = {**TASK, "status": "failed", "settlement_status": "released", "error": {"code": "SUPPLIER_ERROR", "message": "it broke"}}
    rec = Recorder(httpx.Response(200, json=quote), httpx.Response(202, json=TASK), httpx.Response(200, json=failed))
    with pytest.raises(gensvc.TaskFailedError) as caught:
        rec.client().run("m", {"prompt": "x"}, capability="c")
    assert caught.value.code == "SUPPLIER_ERROR" and caught.value.task.settlement_status == "released"
    assert json.loads(rec.requests[0].content) == {"model": "m", "capability": "c", "input": {"prompt": "x"}}


def test_iteration_skips_an_item_pushed_onto_the_next_page() -> None:
    def page(ids: list[str], n: int, more: bool) -> httpx.Response:
        return httpx.Response(200, json={"data": [{**TASK, "id": i} for i in ids], "page": n, "limit": 2, "has_more": more})

    rec = Recorder(page(["task_3", "task_2"], 1, True), page(["task_2", "task_1"], 2, False))
    assert [t.id for t in rec.client().tasks.iter(limit=2, status="succeeded")] == ["task_3", "task_2", "task_1"]
    assert rec.requests[1].url.params["page"] == "2" and rec.requests[1].url.params["status"] == "succeeded"


class Broken(httpx.SyncByteStream):
    """A body that breaks off after some bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __iter__(self) -> Iterator[bytes]:
        yield self.data
        raise httpx.ReadError("connection reset")


def test_a_broken_download_goes_on_with_a_range_request(tmp_path: object) -> None:
    import hashlib
    from pathlib import Path

    data = bytes(range(256)) * 40
    checksum = hashlib.sha256(data).hexdigest()
    asset = {"id": "ast_1", "name": "x.bin", "mime": "text/plain", "size": len(data), "checksum": checksum, "created_at": "2026-11-25T00:00:00Z",
             "url": f"{BASE}/u", "download_url": f"{BASE}/d?sig=1", "download_name": "x.bin", "links_expire_at": "2026-11-25T01:00:00Z"}

    def rest(request: httpx.Request) -> httpx.Response:
        assert request.headers["Range"] == "bytes=1000-" and request.headers["If-Range"] == f'"{checksum}"'
        assert "Authorization" not in request.headers  # signed links need no credential
        return httpx.Response(206, content=data[1000:], headers={"Content-Range": f"bytes 1000-{len(data) - 1}/{len(data)}"})

    rec = Recorder(httpx.Response(200, json=asset), httpx.Response(200, stream=Broken(data[:1000])), rest)
    dest = Path(str(tmp_path)) / "out.bin"
    assert rec.client().assets.download("ast_1", dest) == dest
    assert dest.read_bytes() == data and len(rec.sleeps) == 1


def test_a_download_that_never_matches_the_checksum_is_refused(tmp_path: object) -> None:
    from pathlib import Path

    asset = {"id": "ast_1", "name": "x.bin", "mime": "text/plain", "size": 3, "checksum": "0" * 64, "created_at": "2026-11-25T00:00:00Z",
             "url": f"{BASE}/u", "download_url": f"{BASE}/d", "download_name": "x.bin", "links_expire_at": "2026-11-25T01:00:00Z"}
    rec = Recorder(httpx.Response(200, json=asset), httpx.Response(200, content=b"abc"), httpx.Response(200, content=b"abc"))
    with pytest.raises(gensvc.DownloadIntegrityError):
        rec.client().assets.download("ast_1", Path(str(tmp_path)) / "x.bin")
    assert list(Path(str(tmp_path)).iterdir()) == []


def test_the_async_client_retries_with_the_same_key_and_maps_errors() -> None:
    rec = Recorder(httpx.ConnectError("refused"), error(503, "INTERNAL", headers={"Retry-After": "2"}), httpx.Response(202, json=TASK), error(404, "NOT_FOUND"))
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def main() -> None:
        async with AsyncGensvc("gsk_test", base_url=BASE, transport=httpx.MockTransport(rec)) as c:
            c._sleep = sleep
            task = await c.tasks.create("qt_1")
            assert task.id == "task_1"
            with pytest.raises(gensvc.NotFoundError) as caught:
                await c.tasks.get("task_x")
            assert caught.value.request_id == "req_abc"

    anyio.run(main)
    assert len({r.headers["Idempotency-Key"] for r in rec.requests[:3]}) == 1
    assert sleeps[1] == 2.0 and len(sleeps) == 2


def test_an_upload_waits_out_a_receipt_in_progress_and_resends_after_a_content_mismatch() -> None:
    base = {"upload_id": "up_1", "name": "a.txt", "mime": "text/plain", "size": 2, "checksum": "0" * 64,
            "expires_at": "2026-11-25T00:15:00Z", "asset_id": None, "error_code": None}
    instructions = {"url": f"{BASE}/v1/uploads/up_1/content", "method": "PUT", "headers": {"X-Upload-Token": "gsu_t", "Content-Type": "text/plain"}}

    def ok(status: str, **extra: object) -> httpx.Response:
        return httpx.Response(200, json={**base, "status": status, **extra})

    rec = Recorder(
        ok("prepared", upload=instructions),               # prepare
        error(409, "UPLOAD_IN_PROGRESS"),                  # PUT: another attempt is still being received
        ok("uploading"), ok("uploaded"),                   # status reads until it is received
        error(422, "UPLOAD_CONTENT_MISMATCH"),             # complete: the stored bytes were damaged
        ok("prepared"),                                    # back to prepared
        ok("uploaded"),                                    # PUT again
        ok("completed", asset_id="ast_1", asset={"id": "ast_1"}),  # complete
    )
    result = rec.client().uploads.upload(b"hi", name="a.txt")
    assert result.status == "completed" and result.asset_id == "ast_1"
    assert [(r.method, r.url.path) for r in rec.requests] == [
        ("POST", "/v1/uploads/prepare"), ("PUT", "/v1/uploads/up_1/content"), ("GET", "/v1/uploads/up_1"), ("GET", "/v1/uploads/up_1"),
        ("POST", "/v1/uploads/up_1/complete"), ("GET", "/v1/uploads/up_1"), ("PUT", "/v1/uploads/up_1/content"), ("POST", "/v1/uploads/up_1/complete"),
    ]
    puts = [r for r in rec.requests if r.method == "PUT"]
    assert all(r.content == b"hi" and r.headers["X-Upload-Token"] == "gsu_t" and "Authorization" not in r.headers for r in puts)
    assert all(r.headers["Content-Length"] == "2" for r in puts)


def test_an_expired_upload_asks_for_a_new_key() -> None:
    expired = {"upload_id": "up_1", "status": "expired", "name": "a.txt", "mime": "text/plain", "size": 2, "checksum": "0" * 64,
               "expires_at": "2026-11-25T00:15:00Z", "asset_id": None, "error_code": None}
    rec = Recorder(httpx.Response(200, json=expired))
    with pytest.raises(gensvc.GoneError) as caught:
        rec.client().uploads.upload(b"hi", name="a.txt", idempotency_key="old-key-0001")
    assert caught.value.code == "UPLOAD_EXPIRED" and "new idempotency_key" in caught.value.message


QUOTE = {"quote_id": "qt_2", "model": "m", "resolved_model": "m-1", "currency": "CNY", "pricing_mode": "fixed", "price_version": "v",
         "estimated_amount": "0.020000", "max_amount": "0.020000", "quantity": 1, "unit": "request", "unit_price": "0.020000",
         "expires_at": "2026-11-25T00:15:00Z"}
SETTLED = {**TASK, "status": "succeeded", "settlement_status": "settled", "charged_amount": "0.020000", "output": {"asset_ids": []}}


def test_wait_reads_with_prefer_wait_and_sleeps_only_when_the_server_ignores_it() -> None:
    applied = {"Preference-Applied": "wait=60"}
    rec = Recorder(httpx.Response(200, json=TASK, headers=applied), httpx.Response(200, json={**TASK, "status": "running"}, headers=applied), httpx.Response(200, json=SETTLED, headers=applied))
    assert rec.client().tasks.wait("task_1").status == "succeeded"
    assert [r.headers["Prefer"] for r in rec.requests] == ["wait=60"] * 3
    assert rec.sleeps == []  # the server held each read: nothing polls
    # a read never waits past the caller's deadline
    rec = Recorder(httpx.Response(200, json=SETTLED))
    rec.client().tasks.wait("task_1", timeout=12.0)
    assert rec.requests[0].headers["Prefer"] in ("wait=11", "wait=12")


def test_run_again_with_the_same_key_follows_the_task_that_key_created() -> None:
    created_before = {**TASK, "id": "task_9", "model": "m", "capability": "c"}
    conflict = error(409, "IDEMPOTENCY_CONFLICT", headers={"Location": "/v1/tasks/task_9"})
    rec = Recorder(httpx.Response(200, json=QUOTE), conflict, httpx.Response(200, json=created_before), httpx.Response(200, json={**SETTLED, "id": "task_9"}))
    task = rec.client().run("m", {"prompt": "x"}, capability="c", idempotency_key="my-key-0001")
    assert task.id == "task_9" and task.status == "succeeded"
    assert rec.requests[1].headers["Idempotency-Key"] == "my-key-0001"
    assert [r.url.path for r in rec.requests[2:]] == ["/v1/tasks/task_9", "/v1/tasks/task_9"]

    # a key that created a task of another model is a mistake: the conflict is raised as it came
    rec = Recorder(httpx.Response(200, json=QUOTE), conflict, httpx.Response(200, json={**created_before, "model": "other"}))
    with pytest.raises(gensvc.ConflictError) as caught:
        rec.client().run("m", {"prompt": "x"}, capability="c", idempotency_key="my-key-0001")
    assert caught.value.code == "IDEMPOTENCY_CONFLICT"


def test_run_fills_in_the_only_capability_of_the_model() -> None:
    model = {"id": "m", "name": "M", "modality": "text", "capabilities": ["text.generate"], "available": True, "resolved_model": "m-1", "prices": [], "input_schema": {}}
    rec = Recorder(httpx.Response(200, json=model), httpx.Response(200, json=QUOTE), httpx.Response(202, json=SETTLED))
    rec.client().run("m", {"prompt": "x"})
    assert json.loads(rec.requests[1].content)["capability"] == "text.generate"


def test_request_calls_any_route_with_the_credential_retries_and_errors() -> None:
    rec = Recorder(error(408, "REQUEST_TIMEOUT"), httpx.Response(200, json={"data": [], "page": 1, "limit": 30, "has_more": False}), error(404, "NOT_FOUND"), httpx.Response(204))
    c = rec.client()
    assert c.request("GET", "/v1/assets", params={"q": "fox"}) == {"data": [], "page": 1, "limit": 30, "has_more": False}
    assert rec.requests[1].headers["Authorization"] == "Bearer gsk_test" and rec.requests[1].url.params["q"] == "fox"
    assert len(rec.sleeps) == 1  # 408 is retried for a read, as in the TypeScript SDK
    with pytest.raises(gensvc.NotFoundError):
        c.request("GET", "/v1/nothing")
    assert c.request("DELETE", "/v1/webhook-endpoints/whe_1") is None


def test_webhook_endpoints_and_assets_list() -> None:
    endpoint = {"id": "whe_1", "url": "https://example.com/h", "events": ["*"], "description": None, "status": "enabled", "created_at": "2026-11-25T00:00:00Z"}
    delivery = {"id": "whd_1", "message_id": "msg_1", "event_type": "task.succeeded", "status": "delivered", "next_attempt_at": None, "created_at": "2026-11-25T00:00:00Z",
                "attempts": [{"at": "2026-11-25T00:00:01Z", "status_code": 204, "duration_ms": 12, "error": None}]}
    asset = {"id": "ast_1", "name": "a.png", "mime": "image/png", "size": 3, "checksum": "0" * 64, "created_at": "2026-11-25T00:00:00Z", "url": "u", "download_url": "d",
             "download_name": "a.png", "links_expire_at": "2026-11-25T01:00:00Z", "source": "upload", "task_id": None}
    rec = Recorder(
        error(503, "INTERNAL"),  # a create is never repeated: a second one would make another endpoint
        httpx.Response(200, json={"data": [endpoint], "page": 1, "limit": 30, "has_more": False}),
        httpx.Response(200, json={**endpoint, "secret": "whsec_x"}),
        httpx.Response(200, json={"data": [delivery], "page": 1, "limit": 100, "has_more": False}),
        httpx.Response(202, json={"id": "whd_1", "status": "pending"}),
        httpx.Response(200, json={"id": "whe_1", "deleted": True}),
        httpx.Response(200, json={"data": [asset], "page": 1, "limit": 100, "has_more": False}),
    )
    c = rec.client()
    with pytest.raises(gensvc.InternalServerError):
        c.webhook_endpoints.create("https://example.com/h", ["*"], description="orders")
    assert len(rec.requests) == 1 and json.loads(rec.requests[0].content) == {"url": "https://example.com/h", "events": ["*"], "description": "orders"}
    assert [e.id for e in c.webhook_endpoints.iter()] == ["whe_1"]
    assert c.webhook_endpoints.rotate_secret("whe_1").secret == "whsec_x"
    assert [d.attempts[0].status_code for d in c.webhook_endpoints.iter_deliveries("whe_1")] == [204]
    assert c.webhook_endpoints.retry_delivery("whe_1", "whd_1").status == "pending"
    assert c.webhook_endpoints.delete("whe_1").deleted is True
    assert [(a.id, a.source) for a in c.assets.iter(q="a")] == [("ast_1", "upload")]
    assert [f"{r.method} {r.url.path}" for r in rec.requests[1:]] == [
        "GET /v1/webhook-endpoints", "POST /v1/webhook-endpoints/whe_1/rotate-secret", "GET /v1/webhook-endpoints/whe_1/deliveries",
        "POST /v1/webhook-endpoints/whe_1/deliveries/whd_1/retry", "DELETE /v1/webhook-endpoints/whe_1", "GET /v1/assets",
    ]


def test_the_async_client_follows_a_key_s_task_waits_with_prefer_and_manages_endpoints() -> None:
    applied = {"Preference-Applied": "wait=60"}
    created_before = {**TASK, "id": "task_9", "model": "m", "capability": "c"}
    endpoint = {"id": "whe_1", "url": "https://example.com/h", "events": ["*"], "description": None, "status": "enabled", "created_at": "2026-11-25T00:00:00Z"}
    rec = Recorder(
        httpx.Response(200, json=QUOTE),
        error(409, "IDEMPOTENCY_CONFLICT", headers={"Location": "/v1/tasks/task_9"}),
        httpx.Response(200, json=created_before),
        httpx.Response(200, json=created_before, headers=applied),
        httpx.Response(200, json={**SETTLED, "id": "task_9"}, headers=applied),
        httpx.Response(200, json={"data": [endpoint], "page": 1, "limit": 100, "has_more": False}),
    )
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def main() -> None:
        async with AsyncGensvc("gsk_test", base_url=BASE, transport=httpx.MockTransport(rec)) as c:
            c._sleep = sleep
            task = await c.run("m", {"prompt": "x"}, capability="c", idempotency_key="my-key-0001")
            assert task.id == "task_9" and task.status == "succeeded"
            assert [e.id async for e in c.webhook_endpoints.iter()] == ["whe_1"]

    anyio.run(main)
    assert [r.headers.get("Prefer") for r in rec.requests[3:5]] == ["wait=60", "wait=60"]
    assert sleeps == []
