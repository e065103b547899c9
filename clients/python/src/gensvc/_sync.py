"""The synchronous client."""

from __future__ import annotations

import hashlib
import os
import time
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, List, Mapping, Optional, Sequence, Union

import httpx
from typing_extensions import Unpack

from . import _core
from ._core import RetryPolicy, Timeout, api_error, connection_error, list_params, new_idempotency_key, parse
from ._errors import (
    AuthenticationError,
    ConflictError,
    DownloadIntegrityError,
    GoneError,
    NotFoundError,
    PermissionDeniedError,
    QuoteAboveLimitError,
    RangeNotSatisfiableError,
    TaskCanceledError,
    TaskFailedError,
    UnprocessableEntityError,
    WaitTimeoutError,
)
from ._files import FileSource, LocalFile, ProgressCallback, inspect_file
from ._shared import ListFilters, choose_capability, download_plan, part_path, quote_input, range_start
from .models import (
    Asset,
    AssetDeleted,
    AssetListItem,
    Bill,
    CancelResult,
    Model,
    ModelSummary,
    Page,
    Price,
    Quote,
    Task,
    Upload,
    Voice,
    Wallet,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEndpointDeleted,
    WebhookRetryAccepted,
)

__all__ = ["Gensvc"]

Content = Union[bytes, Callable[[], Iterable[bytes]], None]


class Gensvc:
    """A client of the gensvc API.

    ``api_key`` defaults to ``GENSVC_API_KEY`` and ``base_url`` to ``GENSVC_BASE_URL`` (then
    ``http://127.0.0.1:3000``). Network errors, 429 and 5xx answers are retried with
    exponential backoff and ``Retry-After``; a creation is retried only under the same
    idempotency key, so a retry never makes a second task or upload.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        timeout: Timeout = _core.DEFAULT_TIMEOUT,
        max_retries: int = 3,
        initial_backoff: float = 0.5,
        max_backoff: float = 8.0,
        headers: Optional[Mapping[str, str]] = None,
        transport: Optional[httpx.BaseTransport] = None,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        self.api_key = _core.env_api_key(api_key)
        self.base_url = _core.env_base_url(base_url)
        self.retry = RetryPolicy(max_retries=max_retries, initial_backoff=initial_backoff, max_backoff=max_backoff)
        self._headers = {"User-Agent": _core.USER_AGENT, "Accept": "application/json", **(headers or {})}
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout, transport=transport)
        self._sleep: Callable[[float], None] = time.sleep
        self.models = Models(self)
        self.quotes = Quotes(self)
        self.tasks = Tasks(self)
        self.wallet = WalletResource(self)
        self.billing = Billing(self)
        self.uploads = Uploads(self)
        self.assets = Assets(self)
        self.voices = Voices(self)
        self.webhook_endpoints = WebhookEndpoints(self)

    # -- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Gensvc":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport --------------------------------------------------------------------------
    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Any = None,
        content: Content = None,
        headers: Optional[Mapping[str, str]] = None,
        auth: bool = True,
        idempotent: bool = True,
        stream: bool = False,
        timeout: Any = httpx.USE_CLIENT_DEFAULT,  # a Timeout for this request (a waiting read outlasts the default)
    ) -> httpx.Response:
        """Sends a request, retrying what may be retried; raises :class:`APIError` on refusal."""
        url = path if path.startswith(("http://", "https://")) else self.base_url + path
        all_headers = dict(self._headers)
        if auth and self.api_key:
            all_headers["Authorization"] = f"Bearer {self.api_key}"
        all_headers.update(headers or {})
        attempt = 0
        while True:
            body = content() if callable(content) else content
            request = self._http.build_request(method, url, params=params, json=json, content=body, headers=all_headers, timeout=timeout)
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = self.retry.delay_for(attempt, None) if _core.retryable_exception(exc, idempotent) else None
                if delay is None:
                    raise connection_error(exc) from exc
                self._sleep(delay)
                attempt += 1
                continue
            if response.status_code < 400:
                return response
            if stream:
                response.read()
            delay = self.retry.delay_for(attempt, response) if _core.retryable_response(response, idempotent) else None
            if delay is None:
                raise api_error(response)
            response.close()
            self._sleep(delay)
            attempt += 1

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotent: Optional[bool] = None,
    ) -> Any:
        """Any API call, with the client's credential, retries and typed errors; the parsed
        JSON answer (None for an empty one). ``idempotent`` (default: True for GET, HEAD, PUT,
        DELETE) says whether a repeat is harmless, which decides what is retried; a POST is
        only when it carries its idempotency key."""
        safe = method.upper() in ("GET", "HEAD", "PUT", "DELETE", "OPTIONS") if idempotent is None else idempotent
        response = self._request(method.upper(), path, params=params, json=json, headers=headers, idempotent=safe)
        return response.json() if response.content else None

    # -- catalogue --------------------------------------------------------------------------
    def capabilities(self) -> List[str]:
        """Every capability of the catalogue."""
        return [str(c) for c in self._request("GET", "/v1/capabilities", auth=False).json()["data"]]

    def prices(self) -> List[Price]:
        """Every price of the catalogue."""
        return parse(self._request("GET", "/v1/prices", auth=False), Page[Price]).data

    # -- the whole flow ---------------------------------------------------------------------
    def run(
        self,
        model: str,
        input: Mapping[str, Any],
        *,
        capability: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
        title: Optional[str] = None,
        max_amount: Union[str, Decimal, int, float, None] = None,
        on_quote: Optional[Callable[[Quote], None]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = 600.0,
        poll_interval: float = 0.5,
        max_poll_interval: float = 5.0,
    ) -> Task:
        """Quotes, checks the amounts, creates the task and waits for it.

        ``on_quote(quote)`` sees the amounts before anything is reserved (raise in it to stop);
        ``max_amount`` refuses a quote that would reserve more (:class:`QuoteAboveLimitError`).
        ``idempotency_key`` makes the run resumable: running again with the same key follows
        the task that key created (the API's 409 names it) instead of creating another.
        Returns the succeeded task with its ``output``; raises :class:`TaskFailedError` or
        :class:`TaskCanceledError` when it ends otherwise (nothing is charged then), and
        :class:`WaitTimeoutError` when it is still going after ``timeout`` seconds.
        """
        limit = _core.as_amount(max_amount) if max_amount is not None else None
        if capability is None:
            capability = choose_capability(self.models.get(model))
        quote = self.quotes.create(model, input, capability=capability, options=options)
        if on_quote is not None:
            on_quote(quote)
        if limit is not None and Decimal(quote.max_amount) > limit:
            raise QuoteAboveLimitError(quote, str(max_amount))
        try:
            task = self.tasks.create(quote.quote_id, title=title, idempotency_key=idempotency_key)
        except ConflictError as exc:
            # The key created a task before (a crash, a re-run): follow it when it is this request's.
            found = _core.key_conflict_task_id(exc)
            if found is None:
                raise
            task = self.tasks.get(found)
            if task.model != model or task.capability != capability:
                raise
        if not (task.done and task.settlement_status != "reserved"):
            task = self.tasks.wait(task.id, timeout=timeout, poll_interval=poll_interval, max_poll_interval=max_poll_interval)
        if task.status == "failed":
            raise TaskFailedError(task)
        if task.status == "canceled":
            raise TaskCanceledError(task)
        return task


class _Resource:
    def __init__(self, client: Gensvc) -> None:
        self._client = client


class Models(_Resource):
    def list(self) -> List[ModelSummary]:
        """The catalogue (no credential needed)."""
        return parse(self._client._request("GET", "/v1/models", auth=False), Page[ModelSummary]).data

    def get(self, model_id: str) -> Model:
        """One model with its ``input_schema`` and prices."""
        return parse(self._client._request("GET", f"/v1/models/{_seg(model_id)}", auth=False), Model)


class Quotes(_Resource):
    def create(
        self,
        model: str,
        input: Mapping[str, Any],
        *,
        capability: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> Quote:
        """Prices a request; reserves nothing. ``capability`` defaults to the model's only one."""
        if capability is None:
            capability = choose_capability(self._client.models.get(model))
        body = quote_input(model, capability, input, options)
        return parse(self._client._request("POST", "/v1/quotes", json=body), Quote)


class Tasks(_Resource):
    def create(self, quote_id: str, *, title: Optional[str] = None, idempotency_key: Optional[str] = None) -> Task:
        """Accepts a quote: locks it and reserves its ``max_amount``.

        Retries reuse the same ``Idempotency-Key`` (a fresh one when none is given), so they
        answer the same task. Pass your own key to resume after a crash of your process.
        """
        key = idempotency_key or new_idempotency_key("task")
        body: dict[str, Any] = {"quote_id": quote_id}
        if title is not None:
            body["title"] = title
        return parse(self._client._request("POST", "/v1/tasks", json=body, headers={"Idempotency-Key": key}), Task)

    def get(self, task_id: str) -> Task:
        return parse(self._client._request("GET", f"/v1/tasks/{_seg(task_id)}"), Task)

    def list(self, *, page: Optional[int] = None, limit: Optional[int] = None, **filters: Unpack[ListFilters]) -> Page[Task]:
        """One page of tasks, newest first."""
        return parse(self._client._request("GET", "/v1/tasks", params=list_params(page, limit, filters)), Page[Task])

    def iter(self, *, limit: int = 100, **filters: Unpack[ListFilters]) -> Iterator[Task]:
        """Every task matching the filters, page after page (each task once)."""
        return _iterate(lambda page: self.list(page=page, limit=limit, **filters))

    def cancel(self, task_id: str) -> CancelResult:
        """Cancels or asks the supplier to; repeating it is harmless. Only status ``canceled``
        confirms a cancellation: keep reading the task (or :meth:`wait`)."""
        return parse(self._client._request("POST", f"/v1/tasks/{_seg(task_id)}/cancel", json={}), CancelResult)

    def wait(
        self,
        task_id: str,
        *,
        timeout: Optional[float] = 600.0,
        poll_interval: float = 0.5,
        max_poll_interval: float = 5.0,
    ) -> Task:
        """Waits until the task is ``succeeded``, ``failed`` or ``canceled`` and settled
        (``charged_amount`` known, the rest released), and returns it; :class:`WaitTimeoutError`
        when it is not finished after ``timeout`` seconds. Each read asks the server to answer
        only once the task is finished or after up to 60 seconds (``Prefer: wait``), so nothing
        polls; ``poll_interval`` growing to ``max_poll_interval`` spaces the reads only when a
        server does not honour that preference."""
        schedule = _core.WaitSchedule(timeout, poll_interval, max_poll_interval)
        while True:
            wait = _core.prefer_wait(schedule.deadline)
            response = self._client._request("GET", f"/v1/tasks/{_seg(task_id)}", headers={"Prefer": f"wait={wait}"}, timeout=_core.waiting_timeout(wait))
            task = parse(response, Task)
            if task.done and task.settlement_status != "reserved":
                return task
            honoured = "preference-applied" in response.headers
            if task.done:  # settlement follows the status within moments: look again soon
                schedule.interval = poll_interval
            sleep = schedule.next_sleep()
            if sleep is None:
                if task.done:
                    return task
                raise WaitTimeoutError(task, timeout or 0.0)
            if not honoured:
                self._client._sleep(sleep)


class WalletResource(_Resource):
    def get(self) -> Wallet:
        return parse(self._client._request("GET", "/v1/wallet"), Wallet)


class Billing(_Resource):
    def list(self, *, page: Optional[int] = None, limit: Optional[int] = None, **filters: Unpack[ListFilters]) -> Page[Bill]:
        """One page of bills, newest first (the task list's filters)."""
        return parse(self._client._request("GET", "/v1/billing", params=list_params(page, limit, filters)), Page[Bill])

    def iter(self, *, limit: int = 100, **filters: Unpack[ListFilters]) -> Iterator[Bill]:
        """Every bill matching the filters, page after page (each bill once)."""
        return _iterate(lambda page: self.list(page=page, limit=limit, **filters))


class Uploads(_Resource):
    def upload(
        self,
        file: FileSource,
        *,
        name: Optional[str] = None,
        mime: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        on_progress: Optional[ProgressCallback] = None,
    ) -> Upload:
        """Uploads a file (a path, bytes or a binary file object) and registers it as an asset.

        Computes size, real MIME and SHA-256, then prepare / PUT / complete. Every retry keeps
        the same ``idempotency_key``; pass your own to resume an upload after your process
        stopped (an upload already completed is not sent again). Returns the completed upload;
        its ``asset_id`` goes into ``input.asset_ids``.
        """
        local = inspect_file(file, name=name, mime=mime)
        key = idempotency_key or new_idempotency_key("upload")
        upload = self.prepare(name=local.name, mime=local.mime, size=local.size, checksum=local.checksum, idempotency_key=key)
        instructions = upload.upload
        for _ in range(8):  # a few rounds of in-progress waits and resends, never forever
            if upload.status == "completed":
                return upload
            if upload.status == "expired":
                raise _expired(upload)
            if upload.status == "uploading":
                upload = self._await_receipt(upload.upload_id)
                continue
            if upload.status == "prepared":
                if instructions is None:  # only prepare hands out the write credential
                    upload = self.prepare(name=local.name, mime=local.mime, size=local.size, checksum=local.checksum, idempotency_key=key)
                    instructions = upload.upload
                    continue
                try:
                    upload = self._put(upload, instructions.url, instructions.headers, local, on_progress)
                except ConflictError as exc:
                    if exc.code != "UPLOAD_IN_PROGRESS":
                        raise
                    upload = self._await_receipt(upload.upload_id)
                continue
            try:
                upload = self.complete(upload.upload_id)
            except UnprocessableEntityError as exc:
                if exc.code != "UPLOAD_CONTENT_MISMATCH":
                    raise
                upload = self.get(upload.upload_id)  # back to prepared: send the bytes again
        raise ConflictError(status=409, code="UPLOAD_IN_PROGRESS", message=f"upload {upload.upload_id} is still {upload.status}", request_id=None)

    def _put(self, upload: Upload, url: str, headers: Mapping[str, str], local: LocalFile, on_progress: Optional[ProgressCallback]) -> Upload:
        h = {**headers, "Content-Length": str(local.size)}
        response = self._client._request("PUT", url, content=lambda: local.chunks(on_progress), headers=h, auth=False)
        return parse(response, Upload)

    def _await_receipt(self, upload_id: str) -> Upload:
        schedule = _core.WaitSchedule(90.0, 0.5, 3.0)
        while True:
            upload = self.get(upload_id)
            if upload.status != "uploading":
                return upload
            sleep = schedule.next_sleep()
            if sleep is None:
                return upload
            self._client._sleep(sleep)

    def prepare(self, *, name: str, mime: str, size: int, checksum: str, idempotency_key: str) -> Upload:
        """Step 1: declares the file; the answer carries the PUT instructions."""
        body = {"name": name, "mime": mime, "size": size, "checksum": checksum, "idempotency_key": idempotency_key}
        return parse(self._client._request("POST", "/v1/uploads/prepare", json=body), Upload)

    def complete(self, upload_id: str) -> Upload:
        """Step 3: checks the stored bytes and registers the asset."""
        return parse(self._client._request("POST", f"/v1/uploads/{_seg(upload_id)}/complete", json={}), Upload)

    def get(self, upload_id: str) -> Upload:
        return parse(self._client._request("GET", f"/v1/uploads/{_seg(upload_id)}"), Upload)

    def direct(self, file: FileSource, *, name: Optional[str] = None, mime: Optional[str] = None) -> Asset:
        """One-request upload (no recovery: it is not retried once the bytes may have arrived)."""
        local = inspect_file(file, name=name, mime=mime)
        headers = {"Content-Type": local.mime, "X-Filename": _core_quote(local.name), "Content-Length": str(local.size)}
        response = self._client._request("POST", "/v1/uploads", content=lambda: local.chunks(None), headers=headers, idempotent=False)
        return parse(response, Asset)

    def import_url(self, url: str, *, name: str) -> Asset:
        """Imports a file from a public HTTPS address (not retried once sent)."""
        return parse(self._client._request("POST", "/v1/uploads/import", json={"url": url, "name": name}, idempotent=False), Asset)


class Assets(_Resource):
    def list(self, *, page: Optional[int] = None, limit: Optional[int] = None, q: Optional[str] = None) -> Page[AssetListItem]:
        """One page of the caller's assets, newest first (``q``: part of the name, any case),
        each with fresh links, its ``source`` and, for a result, its ``task_id``."""
        return parse(self._client._request("GET", "/v1/assets", params=list_params(page, limit, {"q": q})), Page[AssetListItem])

    def iter(self, *, limit: int = 100, q: Optional[str] = None) -> Iterator[AssetListItem]:
        """Every asset (matching ``q``), page after page (each once)."""
        return _iterate(lambda page: self.list(page=page, limit=limit, q=q))

    def get(self, asset_id: str) -> Asset:
        """The asset with fresh signed links (valid one hour)."""
        return parse(self._client._request("GET", f"/v1/assets/{_seg(asset_id)}"), Asset)

    def delete(self, asset_id: str) -> AssetDeleted:
        return parse(self._client._request("DELETE", f"/v1/assets/{_seg(asset_id)}"), AssetDeleted)

    def read(self, asset_id: str) -> bytes:
        """The whole file in memory."""
        asset = self.get(asset_id)
        data = self._client._request("GET", asset.download_url, auth=False).content
        if hashlib.sha256(data).hexdigest() != asset.checksum:
            raise DownloadIntegrityError(f"asset {asset_id}: the bytes do not match its SHA-256")
        return data

    def download(
        self,
        asset_id: str,
        path: Union[str, "os.PathLike[str]"],
        *,
        on_progress: Optional[ProgressCallback] = None,
    ) -> Path:
        """Downloads the asset to ``path`` (a directory: under the asset's download name).

        Bytes go to ``<path>.<checksum>.part`` first; an interrupted download, in this call or
        an earlier one, continues from where it stopped with ``Range`` and ``If-Range``. The
        file is checked against the asset's size and SHA-256 before it is moved into place.
        Returns the final path.
        """
        asset = self.get(asset_id)
        dest = Path(path)
        if dest.is_dir():
            dest = dest / Path(asset.download_name).name
        part = part_path(dest, asset)
        failures = 0
        refreshed = False
        restarted = False
        while True:
            offset, headers = download_plan(part, asset)
            if offset == asset.size:
                if _part_matches(part, asset):
                    break
                part.unlink()  # a partial file of other bytes: once more from the start
                if restarted:
                    raise DownloadIntegrityError(f"asset {asset.id}: the downloaded bytes do not match its SHA-256")
                restarted = True
                continue
            try:
                response = self._client._request("GET", asset.download_url, headers=headers, auth=False, stream=True)
                try:
                    start = range_start(response, offset)
                    with open(part, "ab" if start else "wb") as out:
                        written = start
                        if on_progress:
                            on_progress(written, asset.size)
                        for chunk in response.iter_bytes():
                            out.write(chunk)
                            written += len(chunk)
                            if on_progress:
                                on_progress(written, asset.size)
                    if written != asset.size:
                        raise httpx.ReadError(f"the download stopped at {written} of {asset.size} bytes")
                finally:
                    response.close()
            except httpx.TransportError as exc:  # the body broke off: go on from what arrived
                delay = self._client.retry.delay_for(failures, None)
                if delay is None:
                    raise connection_error(exc) from exc
                failures += 1
                self._client._sleep(delay)
            except RangeNotSatisfiableError:
                part.unlink(missing_ok=True)
            except (AuthenticationError, PermissionDeniedError, NotFoundError):
                if refreshed:  # the links expired: fetch fresh ones once
                    raise
                refreshed = True
                asset = self.get(asset_id)
        os.replace(part, dest)
        return dest


class WebhookEndpoints(_Resource):
    """Addresses that receive signed result notifications, and their deliveries. The signing
    ``secret`` is in the answers of :meth:`create` and :meth:`rotate_secret` only; neither is
    repeated after a lost answer (a second create makes a second endpoint, a second rotation
    another secret)."""

    def create(self, url: str, events: Sequence[str], *, description: Optional[str] = None) -> WebhookEndpoint:
        """``events``: event types (``task.succeeded``, ...) or ``["*"]``."""
        body: dict[str, Any] = {"url": url, "events": list(events)}
        if description is not None:
            body["description"] = description
        return parse(self._client._request("POST", "/v1/webhook-endpoints", json=body, idempotent=False), WebhookEndpoint)

    def list(self, *, page: Optional[int] = None, limit: Optional[int] = None) -> Page[WebhookEndpoint]:
        return parse(self._client._request("GET", "/v1/webhook-endpoints", params=list_params(page, limit, {})), Page[WebhookEndpoint])

    def iter(self, *, limit: int = 100) -> Iterator[WebhookEndpoint]:
        return _iterate(lambda page: self.list(page=page, limit=limit))

    def get(self, endpoint_id: str) -> WebhookEndpoint:
        return parse(self._client._request("GET", f"/v1/webhook-endpoints/{_seg(endpoint_id)}"), WebhookEndpoint)

    def delete(self, endpoint_id: str) -> WebhookEndpointDeleted:
        """Nothing is sent to it afterwards."""
        return parse(self._client._request("DELETE", f"/v1/webhook-endpoints/{_seg(endpoint_id)}"), WebhookEndpointDeleted)

    def rotate_secret(self, endpoint_id: str) -> WebhookEndpoint:
        """A new secret (in the answer); the previous one keeps signing beside it for 24 hours."""
        return parse(self._client._request("POST", f"/v1/webhook-endpoints/{_seg(endpoint_id)}/rotate-secret", json={}, idempotent=False), WebhookEndpoint)

    def deliveries(self, endpoint_id: str, *, page: Optional[int] = None, limit: Optional[int] = None) -> Page[WebhookDelivery]:
        """The endpoint's deliveries, newest first, each with its attempts."""
        path = f"/v1/webhook-endpoints/{_seg(endpoint_id)}/deliveries"
        return parse(self._client._request("GET", path, params=list_params(page, limit, {})), Page[WebhookDelivery])

    def iter_deliveries(self, endpoint_id: str, *, limit: int = 100) -> Iterator[WebhookDelivery]:
        return _iterate(lambda page: self.deliveries(endpoint_id, page=page, limit=limit))

    def retry_delivery(self, endpoint_id: str, delivery_id: str) -> WebhookRetryAccepted:
        """Sends the delivery again (the same message, the same ``webhook-id``); repeating is harmless."""
        path = f"/v1/webhook-endpoints/{_seg(endpoint_id)}/deliveries/{_seg(delivery_id)}/retry"
        return parse(self._client._request("POST", path, json={}), WebhookRetryAccepted)


class Voices(_Resource):
    def list(self, *, page: Optional[int] = None, limit: Optional[int] = None) -> Page[Voice]:
        return parse(self._client._request("GET", "/v1/voices", params=list_params(page, limit, {})), Page[Voice])

    def get(self, voice_id: str) -> Voice:
        return parse(self._client._request("GET", f"/v1/voices/{_seg(voice_id)}"), Voice)

    def delete(self, voice_id: str) -> Voice:
        """Queues the deletion (only for a voice not in use)."""
        return parse(self._client._request("DELETE", f"/v1/voices/{_seg(voice_id)}"), Voice)


# -- helpers --------------------------------------------------------------------------------
def _seg(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _core_quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


def _expired(upload: Upload) -> GoneError:
    return GoneError(
        status=410,
        code="UPLOAD_EXPIRED",
        message=f"upload {upload.upload_id} expired: prepare it again with a new idempotency_key",
        request_id=None,
    )


def _part_matches(part: Path, asset: Asset) -> bool:
    digest = hashlib.sha256()
    with open(part, "rb") as f:
        for chunk in iter(lambda: f.read(1024 * 1024), b""):
            digest.update(chunk)
    return digest.hexdigest() == asset.checksum


def _iterate(fetch: Callable[[int], Page[Any]]) -> Iterator[Any]:
    seen: set[str] = set()
    page = 1
    while True:
        result = fetch(page)
        for item in result.data:
            key = getattr(item, "id", None)
            if key is not None:
                if key in seen:  # an item pushed onto the next page by a newer one
                    continue
                seen.add(key)
            yield item
        if not result.has_more or not result.data:
            return
        page += 1
