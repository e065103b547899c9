"""Exceptions raised by the client.

Every refusal of the API becomes an :class:`APIError` subclass chosen by HTTP status,
carrying the error object's ``code``, ``message`` and ``request_id`` plus ``status``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:
    from .models import Quote, Task

__all__ = [
    "GensvcError",
    "APIConnectionError",
    "APITimeoutError",
    "APIError",
    "BadRequestError",
    "AuthenticationError",
    "InsufficientFundsError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "GoneError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "RangeNotSatisfiableError",
    "UnprocessableEntityError",
    "RateLimitError",
    "RequestHeadersTooLargeError",
    "InternalServerError",
    "TaskFailedError",
    "TaskCanceledError",
    "WaitTimeoutError",
    "QuoteAboveLimitError",
    "DownloadIntegrityError",
    "WebhookVerificationError",
]


class GensvcError(Exception):
    """Base of every exception of this package."""


class APIConnectionError(GensvcError):
    """The API could not be reached (after the retries)."""

    def __init__(self, message: str, *, cause: Optional[BaseException] = None) -> None:
        super().__init__(message)
        self.message = message
        self.__cause__ = cause


class APITimeoutError(APIConnectionError):
    """The request timed out (after the retries)."""


class APIError(GensvcError):
    """The API answered with an error object ``{"error": {code, message, request_id}}``."""

    status: int
    code: str
    message: str
    request_id: Optional[str]

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str],
        headers: Optional[Mapping[str, str]] = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (request {request_id})" if request_id else ""))
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.headers: Mapping[str, str] = dict(headers or {})
        self.body = body

    @property
    def retry_after(self) -> Optional[float]:
        """Seconds from the ``Retry-After`` header, when the answer carried one."""
        from ._core import parse_retry_after

        return parse_retry_after(self.headers.get("retry-after"))


class BadRequestError(APIError):
    """400: a body, query, header or model-schema validation failed (``VALIDATION_ERROR``)."""


class AuthenticationError(APIError):
    """401: missing, unknown, revoked or expired credential."""


class InsufficientFundsError(APIError):
    """402: not enough available funds; nothing was reserved."""


class PermissionDeniedError(APIError):
    """403: the OAuth token lacks the scope."""


class NotFoundError(APIError):
    """404: no such resource (or not the caller's)."""


class ConflictError(APIError):
    """409: ``IDEMPOTENCY_CONFLICT``, ``QUOTE_EXPIRED``, ``QUOTE_ALREADY_USED``, ``ASSET_IN_USE``..."""


class GoneError(APIError):
    """410: ``UPLOAD_EXPIRED``."""


class PayloadTooLargeError(APIError):
    """413: over 64 MiB or over the declared size."""


class UnsupportedMediaTypeError(APIError):
    """415: the Content-Type or the file's real type is not accepted."""


class RangeNotSatisfiableError(APIError):
    """416: unsupported or unsatisfiable Range."""


class UnprocessableEntityError(APIError):
    """422: ``PRICE_UNAVAILABLE`` or a content rule (``CHECKSUM_MISMATCH``, ``FILE_TYPE_MISMATCH``...)."""


class RateLimitError(APIError):
    """429: ``RATE_LIMITED``, ``UPLOAD_BUSY`` or ``UPLOAD_LIMIT_REACHED`` (see :attr:`retry_after`)."""


class RequestHeadersTooLargeError(APIError):
    """431: request headers over 16 KiB."""


class InternalServerError(APIError):
    """5xx."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: InsufficientFundsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    416: RangeNotSatisfiableError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    431: RequestHeadersTooLargeError,
}


def error_class(status: int) -> type[APIError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if status >= 500:
        return InternalServerError
    return APIError


class TaskFailedError(GensvcError):
    """A task waited for by :meth:`Gensvc.run` ended ``failed``; nothing was charged."""

    def __init__(self, task: "Task") -> None:
        code = task.error.code if task.error else "FAILED"
        message = task.error.message if task.error else "the task failed"
        super().__init__(f"task {task.id} failed: {code}: {message}")
        self.task = task
        self.code = code
        self.message = message


class TaskCanceledError(GensvcError):
    """A task waited for by :meth:`Gensvc.run` ended ``canceled``."""

    def __init__(self, task: "Task") -> None:
        super().__init__(f"task {task.id} was canceled")
        self.task = task


class WaitTimeoutError(GensvcError):
    """A task did not reach a terminal status in time (it goes on; wait again or cancel it)."""

    def __init__(self, task: "Task", timeout: float) -> None:
        super().__init__(f"task {task.id} is still {task.status} after {timeout:g} s")
        self.task = task
        self.timeout = timeout


class QuoteAboveLimitError(GensvcError):
    """The quote's ``max_amount`` is above the caller's limit; no task was created."""

    def __init__(self, quote: "Quote", limit: str) -> None:
        super().__init__(f"quote {quote.quote_id} would reserve {quote.max_amount} CNY, above the limit of {limit} CNY")
        self.quote = quote
        self.limit = limit


class DownloadIntegrityError(GensvcError):
    """A downloaded file does not have the asset's size or SHA-256."""


class WebhookVerificationError(GensvcError):
    """A webhook request is not signed by the secret, is malformed, or is too old or too new."""
