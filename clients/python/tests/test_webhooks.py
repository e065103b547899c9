"""Webhook verification, against signatures computed by hand (CONTRACT's scheme) and by
the standardwebhooks package."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from datetime import datetime, timezone

import pytest
import standardwebhooks

import gensvc
from gensvc.webhooks import verify

KEY = bytes(range(32))
SECRET = "whsec_" + base64.b64encode(KEY).decode()
TASK = {
    "id": "task_1", "status": "succeeded", "model": "m", "resolved_model": "m-1", "capability": "c", "modality": "text",
    "title": None, "quote_id": "qt_1", "price_version": "v", "currency": "CNY", "max_amount": "0.020000",
    "charged_amount": "0.020000", "settlement_status": "settled",
    "cancellation": {"status": "none", "requested_at": None, "error_code": None},
    "output": {"asset_ids": ["ast_1"], "text": "hi"}, "error": None, "created_at": "2026-11-25T00:00:00Z",
    "updated_at": "2026-11-25T00:00:02Z", "completed_at": "2026-11-25T00:00:02Z",
}
BODY = json.dumps({"type": "task.succeeded", "timestamp": "2026-11-25T00:00:02Z", "data": TASK}).encode()


def by_hand(key: bytes, msg_id: str, ts: int, body: bytes) -> str:
    mac = hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def headers(signature: str, ts: int | None = None, msg_id: str = "msg_1") -> dict[str, str]:
    return {"Webhook-Id": msg_id, "Webhook-Timestamp": str(ts if ts is not None else int(time.time())), "Webhook-Signature": signature}


def test_a_signature_made_by_hand_verifies_and_yields_the_task() -> None:
    ts = int(time.time())
    event = verify(BODY, headers(by_hand(KEY, "msg_1", ts, BODY), ts), secret=SECRET)
    assert event.id == "msg_1" and event.type == "task.succeeded"
    task = event.task()
    assert task.id == "task_1" and task.output is not None and task.output.asset_ids == ["ast_1"]
    assert event.occurred_at == datetime(2026, 11, 25, 0, 0, 2, tzinfo=timezone.utc)


def test_the_packages_signature_is_the_same_and_verifies() -> None:
    ts = int(time.time())
    signed = standardwebhooks.Webhook(SECRET).sign("msg_2", datetime.fromtimestamp(ts, tz=timezone.utc), BODY.decode())
    assert signed == by_hand(KEY, "msg_2", ts, BODY)
    assert verify(BODY.decode(), headers(signed, ts, "msg_2"), secret=SECRET).id == "msg_2"


def test_during_a_rotation_either_signature_may_match() -> None:
    ts = int(time.time())
    other = by_hand(b"another secret of 24 bytes!", "msg_1", ts, BODY)
    assert verify(BODY, headers(f"{other} {by_hand(KEY, 'msg_1', ts, BODY)}", ts), secret=SECRET).type == "task.succeeded"


@pytest.mark.parametrize(
    "case",
    ["tampered body", "other secret", "old", "future", "missing header", "no comma", "bad base64", "not json"],
)
def test_anything_wrong_is_a_verification_error(case: str) -> None:
    ts = int(time.time())
    body = BODY
    h = headers(by_hand(KEY, "msg_1", ts, BODY), ts)
    if case == "tampered body":
        body = BODY.replace(b"0.020000", b"0.000001")
    elif case == "other secret":
        h = headers(by_hand(b"x" * 32, "msg_1", ts, BODY), ts)
    elif case == "old":
        h = headers(by_hand(KEY, "msg_1", ts - 600, BODY), ts - 600)
    elif case == "future":
        h = headers(by_hand(KEY, "msg_1", ts + 600, BODY), ts + 600)
    elif case == "missing header":
        del h["Webhook-Id"]
    elif case == "no comma":
        h["Webhook-Signature"] = "v1"
    elif case == "bad base64":
        h["Webhook-Signature"] = "v1,@@@"
    elif case == "not json":
        body = b"plain"
        h = headers(by_hand(KEY, "msg_1", ts, body), ts)
    with pytest.raises(gensvc.WebhookVerificationError):
        verify(body, h, secret=SECRET)
