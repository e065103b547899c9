"""Pure helpers used by both clients."""

from __future__ import annotations

import os
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Mapping, Optional, Union

import httpx
from typing_extensions import TypedDict

from .models import Asset, Model


class ListFilters(TypedDict, total=False):
    """Filters of ``GET /v1/tasks`` and ``GET /v1/billing`` (all optional)."""

    q: str
    status: str
    modality: str
    settlement_status: str
    connection_id: str
    #: inclusive; a timezone-aware datetime or an RFC 3339 string
    created_from: Union[datetime, str]
    #: exclusive
    created_before: Union[datetime, str]
    #: net charged CNY, inclusive; excludes unsettled tasks
    min_amount: Union[str, Decimal]
    max_amount: Union[str, Decimal]


def choose_capability(model: Model) -> str:
    if len(model.capabilities) == 1:
        return model.capabilities[0]
    raise ValueError(f"model {model.id} has the capabilities {model.capabilities}: pass capability=")


def quote_input(model: str, capability: str, input: Mapping[str, Any], options: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "capability": capability, "input": dict(input)}
    if options:
        body["options"] = dict(options)
    return body


def part_path(dest: Path, asset: Asset) -> Path:
    """Where the bytes of a download gather; named by the content, so a partial file is only
    ever continued with the same bytes."""
    return dest.with_name(f"{dest.name}.{asset.checksum[:16]}.part")


def download_plan(part: Path, asset: Asset) -> tuple[int, dict[str, str]]:
    """How many bytes are already there and the headers that fetch the rest."""
    try:
        offset = os.path.getsize(part)
    except FileNotFoundError:
        offset = 0
    if offset > asset.size:
        part.unlink()
        offset = 0
    if offset == 0:
        return 0, {}
    return offset, {"Range": f"bytes={offset}-", "If-Range": f'"{asset.checksum}"'}


_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")


def range_start(response: httpx.Response, offset: int) -> int:
    """The offset the body starts at: ``offset`` for a matching 206, 0 for a whole file."""
    if response.status_code != 206:
        return 0
    m = _CONTENT_RANGE.match(response.headers.get("content-range", ""))
    if not m or int(m.group(1)) != offset:
        raise httpx.RemoteProtocolError(f"unexpected Content-Range {response.headers.get('content-range')!r} for offset {offset}")
    return offset
