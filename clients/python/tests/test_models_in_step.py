"""The pydantic models against the OpenAPI document the server serves: the same fields,
the same required and nullable ones, compatible types. A change of the API fails here
until the models follow."""

from __future__ import annotations

import types
import typing
from datetime import datetime
from typing import Any, Union

import httpx
import pytest
from pydantic import BaseModel

from gensvc import models

from .conftest import Server

pytestmark = pytest.mark.integration

#: model class -> (schema name, JSON pointer path inside it)
PAIRS: list[tuple[type[BaseModel], str, tuple[str, ...]]] = [
    (models.Price, "Price", ()),
    (models.ModelSummary, "ModelSummary", ()),
    (models.Model, "Model", ()),
    (models.Quote, "Quote", ()),
    (models.Cancellation, "Cancellation", ()),
    (models.Task, "Task", ()),
    (models.TaskOutput, "Task", ("properties", "output", "oneOf", "0")),
    (models.TaskError, "Task", ("properties", "error", "oneOf", "0")),
    (models.CancelResult, "CancelResult", ()),
    (models.Bill, "Bill", ()),
    (models.Wallet, "Wallet", ()),
    (models.Upload, "Upload", ()),
    (models.UploadInstructions, "Upload", ("properties", "upload")),
    (models.UploadAsset, "Upload", ("properties", "asset")),
    (models.Asset, "Asset", ()),
    (models.AssetListItem, "AssetListItem", ()),
    (models.AssetDeleted, "AssetDeleted", ()),
    (models.WebhookEndpoint, "WebhookEndpoint", ()),
    (models.WebhookEndpointDeleted, "WebhookEndpointDeleted", ()),
    (models.WebhookDelivery, "WebhookDelivery", ()),
    (models.WebhookAttempt, "WebhookDelivery", ("properties", "attempts", "items")),
    (models.WebhookRetryAccepted, "WebhookRetryAccepted", ()),
    (models.Voice, "Voice", ()),
    (models.VoiceDeletion, "Voice", ("properties", "deletion")),
]


@pytest.fixture(scope="module")
def document(server: Server) -> dict[str, Any]:
    doc = httpx.get(f"{server.base_url}/v1/openapi.json", timeout=30).json()
    assert doc["info"]["version"] == "0.1.0"
    return typing.cast(dict[str, Any], doc)


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = doc
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def json_types(doc: dict[str, Any], schema: dict[str, Any]) -> set[str]:
    """The JSON types a schema admits (``format: date-time`` counts as its own type)."""
    schema = resolve(doc, schema)
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return set().union(*(json_types(doc, s) for s in schema[key]))
    if "const" in schema:
        return {type_of(schema["const"])}
    if "enum" in schema:
        return {type_of(v) for v in schema["enum"]}
    t = schema.get("type")
    found = set(t) if isinstance(t, list) else {t} if t else {"object"} if "properties" in schema else set()
    if "string" in found and schema.get("format") == "date-time":
        found = (found - {"string"}) | {"date-time"}
    return found


def type_of(value: object) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}.get(type(value), "object")


def python_types(annotation: Any) -> set[str]:
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return set().union(*(python_types(a) for a in typing.get_args(annotation)))
    if annotation is type(None):
        return {"null"}
    if origin in (list, typing.List):
        return {"array"}
    if origin is dict or annotation is dict:
        return {"object"}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {"object"}
    return {str: {"string"}, int: {"integer"}, float: {"number"}, bool: {"boolean"}, datetime: {"date-time"}}[annotation]


@pytest.mark.parametrize(("model", "name", "path"), PAIRS, ids=[f"{m.__name__}" for m, _, _ in PAIRS])
def test_the_model_matches_the_served_schema(document: dict[str, Any], model: type[BaseModel], name: str, path: tuple[str, ...]) -> None:
    schema: Any = document["components"]["schemas"][name]
    for part in path:
        schema = schema[int(part)] if part.isdigit() else schema[part]
    schema = resolve(document, schema)
    properties: dict[str, Any] = schema["properties"]
    required = set(schema.get("required", []))
    assert set(model.model_fields) == set(properties), f"{model.__name__}: fields differ from {name}"
    for field, info in model.model_fields.items():
        expected = json_types(document, properties[field])
        actual = python_types(info.annotation)
        assert expected <= actual, f"{model.__name__}.{field}: the document allows {expected}, the model {actual}"
        assert ("null" in actual) == ("null" in expected) or field not in required, f"{model.__name__}.{field}: nullability differs"
        assert info.is_required() == (field in required), f"{model.__name__}.{field}: required differs"


#: every operation the client calls
CALLED = [
    ("get", "/v1/models"), ("get", "/v1/models/{id}"), ("get", "/v1/capabilities"), ("get", "/v1/prices"),
    ("post", "/v1/quotes"), ("post", "/v1/tasks"), ("get", "/v1/tasks"), ("get", "/v1/tasks/{id}"), ("post", "/v1/tasks/{id}/cancel"),
    ("get", "/v1/wallet"), ("get", "/v1/billing"), ("post", "/v1/uploads"), ("post", "/v1/uploads/import"),
    ("post", "/v1/uploads/prepare"), ("get", "/v1/uploads/{id}"), ("put", "/v1/uploads/{id}/content"),
    ("post", "/v1/uploads/{id}/complete"), ("get", "/v1/assets/{id}"), ("delete", "/v1/assets/{id}"),
    ("get", "/v1/voices"), ("get", "/v1/voices/{id}"), ("delete", "/v1/voices/{id}"), ("get", "/v1/assets"),
    ("post", "/v1/webhook-endpoints"), ("get", "/v1/webhook-endpoints"), ("get", "/v1/webhook-endpoints/{id}"),
    ("delete", "/v1/webhook-endpoints/{id}"), ("post", "/v1/webhook-endpoints/{id}/rotate-secret"),
    ("get", "/v1/webhook-endpoints/{id}/deliveries"), ("post", "/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry"),
]
LISTS = {
    "ModelList": "ModelSummary", "PriceList": "Price", "TaskList": "Task", "BillList": "Bill", "VoiceList": "Voice", "CapabilityList": None,
    "AssetList": "AssetListItem", "WebhookEndpointList": "WebhookEndpoint", "WebhookDeliveryList": "WebhookDelivery",
}


def test_every_success_answer_the_client_reads_has_a_model(document: dict[str, Any]) -> None:
    modelled = {name for _, name, _ in PAIRS}
    for method, path in CALLED:
        operation = document["paths"][path][method]
        successes = {s: r for s, r in operation["responses"].items() if s.startswith("2")}
        assert successes, f"{method} {path}: no success answer"
        for status, answer in successes.items():
            ref = answer["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
            assert ref in modelled or ref in LISTS, f"{method.upper()} {path} {status} answers {ref}, which has no model"
            if LISTS.get(ref):
                item = document["components"]["schemas"][ref]["properties"]["data"]["items"]["$ref"].split("/")[-1]
                assert item == LISTS[ref]
