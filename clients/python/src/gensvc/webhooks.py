"""Verification of the service's result notifications (webhooks) for receivers.

The service signs each delivery by the Standard Webhooks scheme: headers ``webhook-id``,
``webhook-timestamp`` (Unix seconds) and ``webhook-signature`` (``v1,<base64 HMAC-SHA256 of
"{id}.{timestamp}.{body}">``, several space-separated while a rotated secret still signs),
with a secret ``whsec_<base64>``. The check itself is the ``standardwebhooks`` package's.

    from gensvc.webhooks import verify

    event = verify(request.body, request.headers, secret="whsec_...")
    if event.type == "task.succeeded":
        task = event.task()

Verify the raw body bytes exactly as received, before any JSON parsing.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping, Union

import standardwebhooks

from ._errors import WebhookVerificationError
from .models import Task

__all__ = ["WebhookEvent", "verify", "WebhookVerificationError"]


@dataclass(frozen=True)
class WebhookEvent:
    """A verified notification: ``{"type", "timestamp", "data"}`` and its ``webhook-id``."""

    id: str
    type: str
    timestamp: str
    data: Any

    def task(self) -> Task:
        """``data`` as a :class:`~gensvc.models.Task` (for ``task.*`` events)."""
        if not self.type.startswith("task."):
            raise ValueError(f"a {self.type} event carries no task")
        return Task.model_validate(self.data)

    @property
    def occurred_at(self) -> datetime:
        return datetime.fromisoformat(self.timestamp.replace("Z", "+00:00"))


def verify(body: Union[bytes, str], headers: Mapping[str, str], *, secret: str) -> WebhookEvent:
    """Checks the signature and the timestamp (within 5 minutes) of one delivery and returns
    the event. Raises :class:`~gensvc.WebhookVerificationError` when anything is wrong;
    answer such a request with a 4xx. ``headers`` may be any mapping (case does not matter);
    several secrets can be tried one after the other during a rotation."""
    if not secret or not secret.removeprefix("whsec_"):
        raise ValueError("the webhook secret is empty")
    plain = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        text = body.decode("utf-8") if isinstance(body, (bytes, bytearray)) else body
        payload = standardwebhooks.Webhook(secret).verify(text, plain)
    except standardwebhooks.WebhookVerificationError as exc:
        raise WebhookVerificationError(str(exc)) from None
    except (ValueError, binascii.Error, TypeError) as exc:
        # a malformed header (a signature without a comma, bad base64), a body that is not
        # UTF-8 JSON, or a secret that is not base64
        raise WebhookVerificationError(f"malformed webhook request: {exc}") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("type"), str):
        raise WebhookVerificationError("the body is not a notification object")
    return WebhookEvent(id=plain["webhook-id"], type=payload["type"], timestamp=str(payload.get("timestamp", "")), data=payload.get("data"))
