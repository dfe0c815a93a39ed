"""Request validation and `/api/openapi.json`, both from the models in `server.schemas`.

spectree does both from one decorator per view (`validate` below), so a route's
description cannot drift from what it accepts and returns. We chose spectree over
flask-openapi3 because it decorates plain Flask blueprints (no Flask subclass) and lets a
hook turn its validation errors into our own refusals.

Every refusal keeps the API's one shape, `{"error": code, "message": text}`: unreadable JSON
is `invalid_json`, anything else wrong is `invalid_request` with a message that names the
field and quotes its rule (the field's description in the model, which is also what the
OpenAPI description says).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeVar, cast, get_args

from flask import Flask, Request, current_app, request
from flask import Response as FlaskResponse
from flask.json.provider import DefaultJSONProvider
from pydantic import BaseModel, ValidationError
from spectree import Response, SecurityScheme, SpecTree
from spectree.models import SecureType, SecuritySchemeData
from spectree.plugins.base import RawResponsePayload
from spectree.plugins.flask_plugin import FlaskPlugin
from werkzeug.exceptions import BadRequest

from cafe.i18n import Text, lazy_gettext
from server.domain import Unreadable
from server.schemas.fields import MAX_INT, RULES, UNSTORABLE, UNSTORABLE_RULE, ErrorBody

F = TypeVar("F", bound=Callable[..., Any])

#: What a client is told when its body cannot be read as JSON at all.
UNREADABLE_JSON = lazy_gettext(
    'the body is not valid JSON; send an object like {"name": "ann"} '
    "with Content-Type: application/json"
)
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: Statuses that answer with no body, described without a schema.
_EMPTY = frozenset({204, 304})


def _number(text: str) -> int | float:
    """A JSON number with a fraction: the integer it is when the fraction is zero (`2.0`,
    `1e2`), as JSON Schema's `integer` says, else a float. Past 10²⁰ it stays a float,
    which no integer field takes anyway (and `1e999999` never becomes a huge integer)."""
    exact = Decimal(text)
    if exact.is_finite() and exact == exact.to_integral_value() and exact.adjusted() < 20:
        return int(exact)
    return float(text)


class JsonProvider(DefaultJSONProvider):
    """The app's JSON (`server.app.create_app`): Flask's, reading a number as `_number` does,
    so that a body's `{"seats": 2.0}` is the integer JSON Schema says it is."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return super().loads(s, parse_float=_number, **kwargs)


class JsonRequest(Request):
    """A request whose body is read as JSON whatever its Content-Type says (clients forget
    it), and whose body nested deeper than the parser goes is unreadable, not a crash."""

    def get_json(self, force: bool = False, silent: bool = False, cache: bool = True) -> Any:
        """The decoded body, read as JSON regardless of `force`."""
        try:
            return super().get_json(force=True, silent=silent, cache=cache)
        except RecursionError:
            if silent:
                return None
            raise BadRequest(UNREADABLE_JSON) from None  # type: ignore[arg-type]  # said later


def _has_unstorable_text(data: Any) -> bool:
    """Whether any key or string in decoded JSON holds text no column can store.

    Iterative, so that a body nested as deep as the parser allows cannot exhaust the stack.
    """
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if UNSTORABLE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _check_body() -> None:
    """Refuse a body that is not JSON, not an object, or holds text no database can store,
    naming the top-level field."""
    data = request.get_json(silent=True)
    if data is None:
        raise Unreadable("invalid_json", UNREADABLE_JSON)
    if not isinstance(data, dict):
        raise Unreadable(
            "invalid_request",
            lazy_gettext("the body must be a JSON object, not %(type)s", type=type(data).__name__),
        )
    for name, value in data.items():
        if _has_unstorable_text([name, value]):
            raise Unreadable(
                "invalid_request",
                lazy_gettext("`%(field)s` %(rule)s", field=name, rule=UNSTORABLE_RULE),
            )


#: Models validated by `validate`, by name, to find a refused field's rule.
_MODELS: dict[str, type[BaseModel]] = {}


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (`GameOptions` of `GameOptions | None`), if any."""
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _rule(model: type[BaseModel] | None, location: tuple[str | int, ...]) -> str | None:
    """The description of the field at `location` in `model` (following nested models)."""
    for depth, part in enumerate(location):
        if model is None or not isinstance(part, str) or part not in model.model_fields:
            return None
        field = model.model_fields[part]
        nested = _nested_model(field.annotation)
        if depth == len(location) - 1 or nested is None:
            return field.description
        model = nested
    return None


def refusal(error: ValidationError) -> Unreadable:
    """The refusal of a request that did not validate, naming its first wrong field and
    quoting its rule in the reader's language (a model's descriptions are marked `N_`)."""
    problem = error.errors(include_url=False)[0]
    location = tuple(problem["loc"])
    field = ".".join(str(part) for part in location if isinstance(part, str))
    described = _rule(_MODELS.get(error.title), location)
    rule = None if described is None else RULES.get(described, Text(described))
    message: Text
    if problem["type"] == "missing":
        message = (
            lazy_gettext("`%(field)s` is required: %(rule)s", field=field, rule=rule)
            if rule
            else lazy_gettext("`%(field)s` is required", field=field)
        )
    elif problem["type"] == "extra_forbidden":
        message = lazy_gettext(
            "`%(field)s` is not a field of this request; see /api/openapi.json", field=field
        )
    elif rule:
        message = lazy_gettext("`%(field)s` must be %(rule)s", field=field, rule=rule)
    else:  # pydantic's own words, in English
        said = f"{problem['msg'][:1].lower()}{problem['msg'][1:]}"
        message = lazy_gettext("`%(field)s`: %(problem)s", field=field or "body", problem=said)
    return Unreadable("invalid_request", message)


def _refuse_invalid(req: Request, response: Any, error: Exception | None, *_: Any) -> None:
    """spectree's hook before a view: turn a validation error into our refusal (spectree
    types it as any exception; its pydantic adapter passes pydantic's `ValidationError`)."""
    if isinstance(error, ValidationError):
        raise refusal(error) from None


def _check_json_bodies() -> None:
    """Before a route that reads a JSON body: refuse a missing one, one that is not an
    object, or one with text no database stores (spectree would validate a missing or
    falsy body as `{}`, which a model of optional fields accepts)."""
    view = current_app.view_functions.get(request.endpoint or "")
    if request.method in _BODY_METHODS and getattr(view, "reads_json", False):
        _check_body()


class JsonBodies(FlaskPlugin):
    """spectree's Flask plugin, reading every body of a route with a JSON model as JSON
    (it would skip validation of a body sent as a form, leaving the view without one)."""

    # spectree's Flask plugin only asks whether a body's type is in the tuple, which any
    # tuple answers; its base class's two types made mypy infer `tuple[str, str]`.
    FORM_MIMETYPE = ()  # type: ignore[assignment]  # see above: any tuple of types


spec = SpecTree(
    "flask",
    backend=JsonBodies,
    title="Café International by correspondence",
    version="1",
    description="Play Café International by correspondence: players, games, turns, mail.",
    path="apidoc",  # spectree's own pages are not served: `init_app` serves the document
    page_templates={},
    validation_error_status=400,
    validation_error_model=ErrorBody,
    naming_strategy=lambda model: model.__name__,  # the models' names are unique
    nested_naming_strategy=lambda _parent, child: child,
    before=_refuse_invalid,
    security_schemes=[
        SecurityScheme(
            name="bearer", data=SecuritySchemeData(type=SecureType.HTTP, scheme="bearer")
        )
    ],
    security={"bearer": []},
)


def validate(
    ok: int,
    answer: type[BaseModel] | None = None,
    *refusals: int,
    json: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    headers: type[BaseModel] | None = None,
    public: bool = False,
    also: tuple[int, ...] = (),
) -> Callable[[F], F]:
    """Validate the request with `json`/`query`/`headers` (passed to the view as keyword
    arguments of those names) and describe the route: `ok` with `answer`, the `refusals`,
    and those every such route can give (400 for a model, 413 for a body, 401 unless
    `public`). `also` lists other success statuses without a body (304)."""
    for model in (json, query, headers):
        if model is not None:
            _MODELS[model.__name__] = model
    statuses = set(refusals)
    if json or query or headers:
        statuses.add(400)
    if json:
        statuses.add(413)
    if not public:
        statuses.add(401)
    empty = [f"HTTP_{status}" for status in (ok, *also) if status in _EMPTY or answer is None]
    models: dict[str, Any] = {f"HTTP_{status}": ErrorBody for status in sorted(statuses)}
    if answer is not None and ok not in _EMPTY:
        models[f"HTTP_{ok}"] = answer
    described = spec.validate(
        json=json,
        query=query,
        headers=headers,
        resp=Response(*empty, **models),
        security={} if public else None,
    )

    def decorate(view: F) -> F:
        checked = described(view)
        checked.reads_json = json is not None
        return checked

    return decorate


def as_json(data: Any) -> RawResponsePayload:
    """A view's answer as the very bytes Flask would send for `data`, for spectree to check
    against the route's model as JSON (in pydantic's core) rather than walk a dict of
    lists in Python first, as it does with a plain dict."""
    # Flask types `JSONProvider.response` as werkzeug's sans-IO `Response`, which reads no
    # body; what it builds is the app's `response_class`, a full `flask.Response`.
    response = cast(FlaskResponse, current_app.json.response(data))
    return RawResponsePayload(response.get_data())


def page(*statuses: int, media: dict[int, str] | None = None) -> Callable[[F], F]:
    """Describe a web route (which spectree cannot): the statuses it answers, each with an
    HTML page (refusals on the web side are pages too, see `server.errors`) unless `media`
    names another type for it (a text download, a script, a JSON answer to a script)."""

    def describe(view: F) -> F:
        view.page_statuses = (statuses, media or {})  # type: ignore[attr-defined]  # a mark
        return view

    return describe


def _page_responses(statuses: tuple[int, ...], media: dict[int, str]) -> dict[str, Any]:
    def body(status: int) -> dict[str, Any]:
        kind = media.get(status, "text/html")
        return {"description": kind, "content": {kind: {"schema": {}}}}

    return {str(status): body(status) for status in statuses}


def _describe_pages(document: dict[str, Any]) -> None:
    """Fill in the operations of the app's HTML pages: public, answered with HTML."""
    for rule in current_app.url_map.iter_rules():
        described = getattr(current_app.view_functions[rule.endpoint], "page_statuses", None)
        if described is None:
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods or ():
            operation = document["paths"].get(path, {}).get(method.lower())
            if operation is not None:
                operation.update(security=[], responses=_page_responses(*described))


def _bound_path_integers(document: dict[str, Any]) -> None:
    """Publish the range `StoredInt` checks for every integer in a path (spectree knows
    only the converter's name)."""
    for item in document["paths"].values():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if parameter["in"] == "path" and schema.get("type") == "integer":
                    schema.update(minimum=0, maximum=MAX_INT)


#: What every JSON body must be beyond its fields' schema: what `_check_body` refuses. The
#: control characters are in the text fields' patterns too; unpaired surrogates cannot be:
#: a pattern naming them is one many validators cannot read.
BODY_RULE = (
    "A JSON object. No key or string anywhere in it may hold NUL or an unpaired surrogate "
    "(\\ud800-\\udfff), which no database can store: such a body is refused with 400 "
    "`invalid_request`, as is one that is missing, not JSON (`invalid_json`) or not an object."
)


def _describe_bodies(document: dict[str, Any]) -> None:
    """Say on every operation that takes a body what the body check refuses beyond the
    fields' schemas (`BODY_RULE`)."""
    for item in document["paths"].values():
        for operation in item.values():
            if "requestBody" in operation:
                operation["requestBody"]["description"] = BODY_RULE


def document() -> dict[str, Any]:
    """The OpenAPI description of the current app, made once per app (apps differ in the
    routes they serve: the development mail pages exist only where they are on).
    spectree's own `spec` property would keep the first app's for every app."""
    cached = current_app.extensions.get("openapi")
    if cached is None:
        cached = spec._generate_spec()
        _describe_pages(cached)
        _bound_path_integers(cached)
        _describe_bodies(cached)
        current_app.extensions["openapi"] = cached
    return cached


def init_app(app: Flask) -> None:
    """Read every request body as JSON through `JsonRequest`, checked before its route
    validates it (`_check_json_bodies`)."""
    app.request_class = JsonRequest
    app.before_request(_check_json_bodies)
