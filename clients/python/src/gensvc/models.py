"""Objects of the gensvc API as pydantic models.

Each model mirrors a schema of the served OpenAPI document (``GET /v1/openapi.json``,
``components.schemas``); ``tests/test_models_in_step.py`` compares them field by field with
the document of a running server, so a change of the API shows up as a failing test.

Amounts stay CNY decimal strings exactly as the API sends them (``"0.080000"``); use
:func:`decimal.Decimal` to compute with them. Enumerated values (statuses, modalities) are
plain strings so that a value added by a newer server does not break an older client.
Unknown fields sent by a newer server are kept (``model_extra``), never refused.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Generic, List, Optional, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "APIModel",
    "Asset",
    "AssetDeleted",
    "Bill",
    "CancelResult",
    "Cancellation",
    "Model",
    "ModelSummary",
    "Page",
    "Price",
    "Quote",
    "Task",
    "TaskError",
    "TaskOutput",
    "Upload",
    "UploadAsset",
    "UploadInstructions",
    "Voice",
    "VoiceDeletion",
    "Wallet",
    "TERMINAL_TASK_STATUSES",
]

#: Task statuses that nothing leaves.
TERMINAL_TASK_STATUSES = frozenset({"succeeded", "failed", "canceled"})


class APIModel(BaseModel):
    """Base of every API object: unknown fields are kept, values are validated."""

    model_config = ConfigDict(extra="allow", frozen=False, populate_by_name=True)


class Price(APIModel):
    """A price of the catalogue."""

    model: str
    capability: str
    unit: str
    unit_price: str
    currency: str
    pricing_mode: str
    price_version: str
    parameters: dict[str, Any]


class ModelSummary(APIModel):
    """A model as listed by ``GET /v1/models`` (without ``input_schema``)."""

    id: str
    name: str
    modality: str
    capabilities: List[str]
    available: bool
    resolved_model: str
    prices: List[Price]


class Model(ModelSummary):
    """A model with its input schema (``GET /v1/models/{id}``)."""

    input_schema: dict[str, Any]


class Quote(APIModel):
    """A quote: reserves nothing; accepting it creates a task and locks the price."""

    quote_id: str
    model: str
    resolved_model: str
    currency: str
    pricing_mode: str
    price_version: str
    estimated_amount: str
    max_amount: str
    quantity: int
    unit: str
    unit_price: str
    expires_at: datetime


class Cancellation(APIModel):
    """The cancellation state of a task."""

    status: str
    requested_at: Optional[datetime]
    error_code: Optional[str]


class TaskOutput(APIModel):
    """What a task produced."""

    asset_ids: List[str]
    voice_id: Optional[str] = None
    text: Optional[str] = None


class TaskError(APIModel):
    """Why a task failed."""

    code: str
    message: str


class Task(APIModel):
    """An asynchronous task."""

    id: str
    status: str
    model: str
    resolved_model: str
    capability: str
    modality: str
    title: Optional[str]
    quote_id: str
    price_version: str
    currency: str
    max_amount: str
    charged_amount: Optional[str]
    settlement_status: str
    cancellation: Cancellation
    output: Optional[TaskOutput]
    error: Optional[TaskError]
    created_at: datetime
    updated_at: datetime
    completed_at: Optional[datetime]

    @property
    def done(self) -> bool:
        """True once the task reached ``succeeded``, ``failed`` or ``canceled``."""
        return self.status in TERMINAL_TASK_STATUSES


class CancelResult(APIModel):
    """The answer of ``POST /v1/tasks/{id}/cancel`` (may carry more fields)."""

    task_id: str
    status: str
    cancellation: Cancellation


class Bill(APIModel):
    """The bill of one task."""

    id: str
    task_id: str
    model: str
    modality: str
    currency: str
    max_amount: str
    charged_amount: Optional[str]
    released_amount: Optional[str]
    settlement_status: str
    created_at: datetime
    settled_at: Optional[datetime]


class Wallet(APIModel):
    """The wallet: ``balance = available + reserved``."""

    currency: str
    balance: str
    reserved: str
    available: str

    @property
    def available_amount(self) -> Decimal:
        return Decimal(self.available)


class UploadInstructions(APIModel):
    """Where and how to send the bytes (returned by prepare only)."""

    url: str
    method: str
    headers: dict[str, str]


class UploadAsset(APIModel):
    """The asset an upload registered (more fields allowed)."""

    id: str


class Upload(APIModel):
    """An upload: prepare, status read, content write and complete all answer this shape."""

    upload_id: str
    status: str
    name: str
    mime: str
    size: int
    checksum: str
    expires_at: datetime
    asset_id: Optional[str]
    error_code: Optional[str]
    upload: Optional[UploadInstructions] = None
    asset: Optional[UploadAsset] = None


class Asset(APIModel):
    """An asset with fresh signed links (valid one hour)."""

    id: str
    name: str
    mime: str
    size: int
    checksum: str
    created_at: datetime
    url: str
    download_url: str
    download_name: str
    links_expire_at: datetime


class AssetListItem(Asset):
    """An asset as ``GET /v1/assets`` lists it: where it came from and, for a result, its task."""

    source: str
    task_id: Optional[str]


class AssetDeleted(APIModel):
    """The answer of ``DELETE /v1/assets/{id}``."""

    id: str
    deleted: bool
    deleted_at: datetime


class VoiceDeletion(APIModel):
    """The deletion state of a voice."""

    status: str
    requested_at: Optional[datetime]
    completed_at: Optional[datetime]


class Voice(APIModel):
    """A voice, usable as ``input.voice_id``."""

    id: str
    name: str
    status: str
    source_task_id: str
    models: List[str]
    created_at: datetime
    updated_at: datetime
    deletion: VoiceDeletion


class WebhookEndpoint(APIModel):
    """An address that receives result notifications; ``secret`` only when created or rotated."""

    id: str
    url: str
    events: List[str]
    description: Optional[str]
    status: str
    created_at: datetime
    secret: Optional[str] = None


class WebhookEndpointDeleted(APIModel):
    id: str
    deleted: bool


class WebhookAttempt(APIModel):
    """One attempt of a delivery: when, the receiver's status (None without an answer), how long, why it failed."""

    at: datetime
    status_code: Optional[int]
    duration_ms: int
    error: Optional[str]


class WebhookDelivery(APIModel):
    """One message to one endpoint and its attempts; ``message_id`` is the ``webhook-id``."""

    id: str
    message_id: str
    event_type: str
    status: str
    attempts: List[WebhookAttempt]
    next_attempt_at: Optional[datetime]
    created_at: datetime


class WebhookRetryAccepted(APIModel):
    id: str
    status: str


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    """One page of a list: ``data``, ``page``, ``limit`` and ``has_more``."""

    model_config = ConfigDict(extra="allow")

    data: List[T] = Field(default_factory=list)
    page: int
    limit: int
    has_more: bool
