"""What the sync and async clients share: configuration, retry decisions, backoff and the
mapping of answers to models and exceptions. No I/O happens here."""

from __future__ import annotations

import email.utils
import os
import random
import re
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Mapping, Optional, TypeVar, Union

import httpx
from pydantic import BaseModel

from ._errors import APIConnectionError, APIError, APITimeoutError, error_class
from ._version import __version__

DEFAULT_BASE_URL = "http://127.0.0.1:3000"
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=10.0)
USER_AGENT = f"gensvc-python/{__version__}"

#: Statuses a retry may cure (the TypeScript SDK retries the same ones).
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
#: The longest ``Prefer: wait`` the service honours, in seconds.
MAX_PREFER_WAIT = 60
#: The longest ``Retry-After`` the client sleeps through before giving up and raising.
MAX_RETRY_AFTER = 60.0

M = TypeVar("M", bound=BaseModel)
Timeout = Union[float, httpx.Timeout, None]


def env_api_key(api_key: Optional[str]) -> Optional[str]:
    return api_key if api_key is not None else (os.environ.get("GENSVC_API_KEY") or None)


def env_base_url(base_url: Optional[str]) -> str:
    url = base_url or os.environ.get("GENSVC_BASE_URL") or DEFAULT_BASE_URL
    url = url.rstrip("/")
    if url.endswith("/v1"):
        url = url[: -len("/v1")]
    return url


def new_idempotency_key(prefix: str) -> str:
    """A fresh key of 8 to 150 characters for one intended creation."""
    return f"{prefix}-{uuid.uuid4().hex}"


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds of a ``Retry-After`` header (delay-seconds or an HTTP date), or None."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def as_amount(value: Union[str, int, float, Decimal]) -> Decimal:
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None
    if not amount.is_finite() or amount < 0:
        raise ValueError(f"not an amount: {value!r}")
    return amount


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry.

    ``max_retries`` counts the attempts after the first. The delay before retry ``n``
    (0-based) is ``min(max_backoff, initial_backoff * 2**n)`` with full jitter between half
    and all of it, or the server's ``Retry-After`` when it sends one (up to
    ``MAX_RETRY_AFTER`` seconds; a longer one is raised to the caller at once).
    """

    max_retries: int = 3
    initial_backoff: float = 0.5
    max_backoff: float = 8.0

    def backoff(self, attempt: int) -> float:
        base: float = min(self.max_backoff, self.initial_backoff * float(2**attempt))
        return base * (0.5 + random.random() / 2)

    def delay_for(self, attempt: int, response: Optional[httpx.Response]) -> Optional[float]:
        """Seconds to wait before retrying, or None when no retry is due."""
        if attempt >= self.max_retries:
            return None
        if response is not None:
            after = parse_retry_after(response.headers.get("retry-after"))
            if after is not None:
                return after if after <= MAX_RETRY_AFTER else None
        return self.backoff(attempt)


# Errors raised before any byte of the request left: retrying cannot repeat an effect.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def retryable_exception(exc: Exception, idempotent: bool) -> bool:
    if isinstance(exc, _NOT_SENT):
        return True
    return idempotent and isinstance(exc, httpx.TransportError)


def retryable_response(response: httpx.Response, idempotent: bool) -> bool:
    """429 never had an effect; 5xx are retried only when a repeat cannot double anything."""
    if response.status_code == 429:
        return True
    return idempotent and response.status_code in RETRYABLE_STATUSES


def connection_error(exc: Exception) -> APIConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(f"request timed out: {exc}", cause=exc)
    return APIConnectionError(f"could not reach the API: {exc}", cause=exc)


def api_error(response: httpx.Response) -> APIError:
    """The exception for a refused request, from the error object when there is one."""
    status = response.status_code
    request_id = response.headers.get("x-request-id")
    body: Any = None
    code = f"HTTP_{status}"
    message = response.reason_phrase or "request failed"
    try:
        body = response.json()
    except ValueError:
        text = response.text
        if text:
            message = text[:500]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        err = body["error"]
        code = str(err.get("code") or code)
        message = str(err.get("message") or message)
        request_id = str(err.get("request_id") or request_id or "") or None
    return error_class(status)(status=status, code=code, message=message, request_id=request_id, headers=response.headers, body=body)


def parse(response: httpx.Response, model: type[M]) -> M:
    return model.model_validate(response.json())


def list_params(page: Optional[int], limit: Optional[int], filters: Mapping[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if page is not None:
        params["page"] = page
    if limit is not None:
        params["limit"] = limit
    for key, value in filters.items():
        if value is None:
            continue
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        params[key] = str(value)
    return params


def prefer_wait(deadline: Optional[float]) -> int:
    """Seconds of ``Prefer: wait`` for the next read of a task: up to 60, not past the deadline (at least 1)."""
    if deadline is None:
        return MAX_PREFER_WAIT
    return max(1, min(MAX_PREFER_WAIT, int(deadline - time.monotonic())))


def waiting_timeout(wait: int) -> httpx.Timeout:
    """A read timeout that outlasts a ``Prefer: wait`` answer."""
    return httpx.Timeout(wait + 30.0, connect=10.0)


def key_conflict_task_id(exc: APIError) -> Optional[str]:
    """The task an Idempotency-Key created, from a 409 IDEMPOTENCY_CONFLICT's ``Location``."""
    if exc.code != "IDEMPOTENCY_CONFLICT":
        return None
    location = exc.headers.get("location") or ""
    m = re.match(r"^/v1/tasks/([^/?#]+)$", location)
    return urllib.parse.unquote(m.group(1)) if m else None


class WaitSchedule:
    """Polling intervals for waiting on a task: starts short, grows by ``factor`` up to
    ``max_interval``, never past the deadline."""

    def __init__(self, timeout: Optional[float], initial: float, maximum: float, factor: float = 1.5) -> None:
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.interval = initial
        self.maximum = maximum
        self.factor = factor

    def next_sleep(self) -> Optional[float]:
        """Seconds to sleep before the next poll, or None when the deadline has passed."""
        now = time.monotonic()
        if self.deadline is not None and now >= self.deadline:
            return None
        sleep = self.interval
        self.interval = min(self.maximum, self.interval * self.factor)
        if self.deadline is not None:
            sleep = min(sleep, self.deadline - now)
        return sleep
