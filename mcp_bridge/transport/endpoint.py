"""The Streamable HTTP transport: a plain, stateless Django view per group/version.

MCP spec 2025-11-25 and 2026-07-28, "Transports" → "Streamable HTTP". Both
protocol eras are served on the same endpoint; the ``MCP-Protocol-Version``
header routes a request (absent or a handshake revision: handshake era; any
other value: the stateless 2026-07-28 era, see :mod:`mcp_bridge.dispatch.envelope`).

:func:`mcp_endpoint` reads like Django's ``BaseHandler._get_response``: four functions,
called in order, each returning what the next one needs; none calls back up. A step that ends
the request raises :class:`~mcp_bridge.transport.answers.Refused`, and the views answer every
refusal in one place (:func:`answers_in_json`), as DRF's ``handle_exception`` answers an
``APIException``.

:func:`refuse` what HTTP rules out, in this order:

* a foreign ``Origin``: 403 (:mod:`mcp_bridge.transport.security`);
* a protected group's endpoint without an accepted credential: 401/403 with a
  ``WWW-Authenticate`` challenge (:mod:`mcp_bridge.transport.authorization`); for a browser
  that wants the tool explorer, with a page that offers to sign in
  (:class:`~mcp_bridge.transport.explorer.SignInNeeded`);
* ``GET``, ``DELETE`` or any method but ``POST``: 405 with ``Allow: POST`` (the server
  offers no server-initiated stream and issues no sessions), except a browser's ``GET``
  preferring ``text/html``, answered with the tool explorer page
  (:mod:`mcp_bridge.transport.explorer`, ``MCP_BRIDGE["EXPLORER"]``);
* an ``Accept`` allowing neither JSON nor an event stream: 406;
* a ``Content-Type`` other than ``application/json``: 415 (a missing one is read as
  JSON, see docs/endpoint.md).

:func:`read_exchange`: what the request carries, as an :class:`Exchange`:

* the body, one JSON-RPC message: over ``MAX_BODY_BYTES`` 413 (with room for one file of
  ``MAX_UPLOAD_BYTES`` on a group with upload tools), undelimited 411
  (:mod:`mcp_bridge.transport.bodies`), not JSON -32700;
* ``?schema=<profile>``, how the tool schemas are written
  (:mod:`mcp_bridge.schemas.profiles`; also read by the OpenRPC document): an unknown
  profile gets 400;
* the tool set of the group and version (404 for an unknown group or version, decided by
  :func:`mcp_bridge.toolset.registry.resolve_version` as for every management command; a
  JSON-RPC 500 when it cannot be built, and one naming the key while ``CONFIRM`` or
  ``CONFIRM_WITHOUT_ELICITATION`` names a group or tool that does not exist:
  :mod:`mcp_bridge.toolset.guards`);
* the protocol revision, decided in :func:`protocol_revision` alone: without the
  header, 2025-03-26; an unsupported one goes to the stateless era, whose envelope
  check answers it with a 400.

:func:`handle` it: the message's depth (``MAX_JSON_DEPTH``, -32600), then one message
(:mod:`mcp_bridge.dispatch.methods`) or a 2025-03-26 batch
(:mod:`mcp_bridge.transport.batch`).

:func:`encode` the answer: a request's answer as ``application/json`` (gzipped by
:mod:`mcp_bridge.transport.compression`), or as a one-event ``text/event-stream`` when
the client accepts only that; 202 and an empty body for a notification or a response.
In the stateless era, JSON-RPC errors travel with the HTTP status the revision assigns
(400 for -32602/-32020/-32022, 404 for -32601). A JSON-RPC error answers with the
request's ``id`` whenever it has a usable one.

Around the four, in the view itself: the language of the tool texts is negotiated
first (:func:`negotiated_language`) and labels every answer (:func:`labelled`:
``Content-Language``, ``Vary``); the ``tool_call_delivered`` signals of the calls are
tied to the response's ``close()`` (:func:`mcp_bridge.toolcall.events.deliver_after_response`);
and every failure that escapes the steps is a JSON-RPC answer, not Django's HTML error page
(:func:`answers_in_json`, around the endpoint's steps, the OpenRPC document and the JSON 404
alike): a refusal its own answer, an invalid ``MCP_BRIDGE`` a 500 (:func:`misconfigured`), an
unreachable database a 503, anything else a 500, with details only when ``DEBUG`` is on.

The endpoint is CSRF-exempt because it is not a form target: it authenticates
nobody itself. Each tool call runs the real DRF view, whose
``SessionAuthentication`` enforces CSRF for session-authenticated callers as it
does for any REST request, and token-authenticated callers need no token.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import got_request_exception
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.csrf import csrf_exempt

from mcp_bridge.base.conf import SETTING_OF_CHECK, SettingError, bridge_settings
from mcp_bridge.base.encoding import BridgeJSONEncoder, dumps_bytes
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.headers import header, put_header
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import (
    DEFAULT_HEADER_REVISION,
    HANDSHAKE_REVISIONS,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    MODERN_ERROR_HTTP_STATUS,
    MODERN_REVISIONS,
    PROTOCOL_VERSION_META_KEY,
    JsonRpcError,
)
from mcp_bridge.build.preflight import configuration_problems
from mcp_bridge.build.translation import negotiate_language
from mcp_bridge.dispatch.methods import Call, echoed_id, handle_message
from mcp_bridge.schemas.profiles import (
    PROFILES,
    QUERY_PARAMETER,
    ProfileError,
    profile_from_request,
)
from mcp_bridge.toolcall.events import deliver_after_response, forget_pending
from mcp_bridge.toolset.guards import refuse_unknown_names
from mcp_bridge.toolset.registry import (
    ToolSet,
    UnknownEndpoint,
    active_urlconf,
    check_groups,
    get_toolset,
    resolve_version,
)
from mcp_bridge.transport.answers import Refused, error_answer
from mcp_bridge.transport.authorization import authorize
from mcp_bridge.transport.batch import handle_batch
from mcp_bridge.transport.bodies import (
    BodyRefused,
    body_limit,
    check_depth,
    check_message_size,
    decode_message,
    file_characters,
    read_body,
)
from mcp_bridge.transport.compression import json_answer
from mcp_bridge.transport.explorer import SignInNeeded, explorer_page, wants_explorer
from mcp_bridge.transport.security import origin_allowed

logger = logging.getLogger("mcp_bridge.transport")

#: How the answer to an accepted request is written: JSON, or a one-event SSE stream; or, for
#: a browser's GET, the tool explorer's HTML page.
AnswerFormat = Literal["json", "sse", "html"]
#: What handling a message gives: one JSON-RPC response, a batch's, or none (a notification).
Reply = dict[str, Any] | list[dict[str, Any]] | None


@dataclass(slots=True)
class Exchange:
    """What :func:`read_exchange` read from an accepted request.

    Attributes:
        call: what the message is handled with (the request, the tool set, the revision,
            the schema profile).
        message: the decoded JSON-RPC message (an array: a batch).
        body: the body it was decoded from.
        answer_as: the format of the answer, decided by :func:`refuse` from ``Accept``.
    """

    call: Call
    message: Any
    body: bytes
    answer_as: AnswerFormat


def answers_in_json(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Make every failure of an MCP URL's view a JSON-RPC answer, never Django's HTML page.

    A client reads JSON-RPC; Django's error page (or its plain "Server Error") tells it
    nothing. What escapes the view is answered here, logged on ``mcp_bridge.transport``:

    * :class:`~mcp_bridge.transport.answers.Refused`, raised by a step that ends the request
      (an origin, a credential, a method, a body, a profile, a group the endpoint refuses):
      its own answer, not logged (it is the endpoint working);
    * ``ImproperlyConfigured`` (an invalid ``MCP_BRIDGE``, read on its first access):
      :func:`misconfigured`, a 500 naming the check ids;
    * a ``DatabaseError`` (the database is unreachable: ``OperationalError`` while an
      authenticator looks the credential up, before any JSON-RPC handling): a **503**
      with ``Retry-After``, which clients retry;
    * anything else: a 500.

    The exception's text is sent only when ``DEBUG`` is on; the log always has it, and
    Django's ``got_request_exception`` is sent, as for any view's exception, so that error
    reporters see it.
    """

    @functools.wraps(view)
    def answered(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Refused as refusal:
            return refusal.answer()
        # A failure: what the calls made before it answered is not sent, so their
        # tool_call_delivered signals must not go out with this answer (forget_pending).
        except ImproperlyConfigured as exc:
            forget_pending(request)
            return misconfigured(exc)
        except DatabaseError as exc:
            forget_pending(request)
            logger.exception("The MCP endpoint %s cannot reach its database.", request.path)
            got_request_exception.send(sender=None, request=request)  # Sentry, mail_admins
            unavailable = error_answer(
                INTERNAL_ERROR,
                _failure_text(
                    exc, "Service unavailable: the database cannot be reached; retry later."
                ),
                503,
            )
            unavailable["Retry-After"] = "5"
            return unavailable
        except Exception as exc:
            forget_pending(request)
            logger.exception("The MCP endpoint %s failed.", request.path)
            got_request_exception.send(sender=None, request=request)
            return error_answer(
                INTERNAL_ERROR, _failure_text(exc, "Internal error; see the server log."), 500
            )

    return answered


def _failure_text(exc: Exception, public: str) -> str:
    return f"{public} {type(exc).__name__}: {exc}" if settings.DEBUG else public


# Exempt from Django's LoginRequiredMiddleware, as DRF's views are: the endpoint authenticates
# in the view (DRF, MCP authorization), and a login redirect is no answer for an MCP client.
@login_not_required
@csrf_exempt
def mcp_endpoint(request: HttpRequest, group: str, version: str | None = None) -> HttpResponse:
    """The MCP endpoint of one API group (and version): ``/mcp/<group>/[<version>/]``."""
    language = negotiated_language(request)
    response = respond(request, group, version)
    deliver_after_response(request, response)
    return labelled(response, language)


@answers_in_json
def respond(request: HttpRequest, group: str, version: str | None) -> HttpResponse:
    """The four steps of the module docstring, in order; a refusal raised by any of them is
    answered by :func:`answers_in_json`."""
    answer_as = refuse(request, group)
    if answer_as == "html":  # a browser's GET: the tool explorer (mcp_bridge.transport.explorer)
        return explorer_page(request, read_toolset(request, group, version, request.LANGUAGE_CODE))
    exchange = read_exchange(request, group, version, answer_as)
    return encode(exchange, handle(exchange))


def refuse(request: HttpRequest, group: str) -> AnswerFormat:
    """Refuse what HTTP rules out (see the module docstring), checked in order: origin,
    authorization, method, ``Accept``, ``Content-Type``.

    Returns:
        For a request none of them rules out, the format its answer takes (``Accept``), which
        the refusal of an unacceptable one had to decide anyway.

    Raises:
        Refused: the first of them that rules the request out.
    """
    if not origin_allowed(request):
        raise Refused(
            INVALID_REQUEST,
            f"Forbidden: Origin {request.headers['Origin']!r} is not allowed to use this endpoint.",
            403,
        )
    try:
        authorize(request, group)  # MCP authorization, before any JSON-RPC handling
    except Refused as refusal:
        if refusal.status in (401, 403) and wants_explorer(request):
            # A browser at a protected group's page: the same status and challenge, with a
            # page that offers to sign in rather than JSON-RPC.
            raise SignInNeeded(refusal, request, group) from None
        raise
    if request.method != "POST":
        if wants_explorer(request):
            return "html"
        raise Refused(INVALID_REQUEST, "", 405, headers={"Allow": "POST"}, body=False)
    # The answer depends on the Accept header alone, and clients send the same one every time.
    answer_as = _answer_format(request.META.get("HTTP_ACCEPT", "*/*"))
    if answer_as is None:
        raise Refused(
            INVALID_REQUEST,
            "Not Acceptable: the Accept header must allow application/json or text/event-stream.",
            406,
        )
    if request.content_type and request.content_type != "application/json":
        raise Refused(
            INVALID_REQUEST,
            f"Unsupported Media Type {request.content_type!r}: send the JSON-RPC message as application/json.",
            415,
        )
    return answer_as


def read_exchange(
    request: HttpRequest, group: str, version: str | None, answer_as: AnswerFormat
) -> Exchange:
    """The body, the schema profile, the tool set and the revision of an accepted request.

    Raises:
        Refused: the first of them that cannot be read (see the module docstring).
    """
    # The tool set first: whether the group has upload tools decides how much body is read.
    # Its refusal (an unknown group, a build that fails) waits until the body has been read,
    # as before: a body that is too large or not JSON is answered as such, and the 500 of a
    # build carries the message's id.
    toolset: ToolSet | None = None
    deferred: Refused | None = None
    try:
        toolset = read_toolset(request, group, version, request.LANGUAGE_CODE)
    except Refused as refusal:
        deferred = refusal
    limit = body_limit(takes_files=toolset is not None and bool(toolset.file_arguments))
    try:
        body = read_body(request, limit)
        message = decode_message(body)
        if toolset is not None and limit.file:
            uploads = toolset.file_arguments
            files = file_characters(message, lambda name: uploads.get(name, ()))
            check_message_size(body, files, limit)
    except BodyRefused as exc:
        raise Refused(INVALID_REQUEST, exc.message, exc.status, exc.data) from None
    except JsonRpcError as exc:
        raise Refused(exc.code, exc.message, exc.http_status, exc.data) from None
    profile = read_profile(request)
    if deferred is not None:
        if deferred.status == 500:
            deferred.request_id = echoed_id(message)
        raise deferred
    assert toolset is not None
    call = Call(
        request=request,
        toolset=toolset,
        revision=protocol_revision(request, message),
        schema_profile=profile,
    )
    return Exchange(call, message, body, answer_as)


def handle(exchange: Exchange) -> Reply:
    """The JSON-RPC reply to the exchange's message.

    Raises:
        Refused: the error that stops the message whole (too deep, not a JSON-RPC message, a
            batch empty, too long or outside 2025-03-26), with the message's ``id``.
    """
    try:
        check_depth(exchange.message, exchange.body)  # before anything walks the message
        if isinstance(exchange.message, list):  # a JSON-RPC batch: 2025-03-26 only
            return handle_batch(exchange.message, exchange.call)
        return handle_message(exchange.message, exchange.call)
    except JsonRpcError as exc:
        raise Refused(
            exc.code,
            exc.message,
            exc.http_status,
            exc.data,
            request_id=echoed_id(exchange.message),
        ) from None


def encode(exchange: Exchange, reply: Reply) -> HttpResponse:
    """The HTTP answer that carries ``reply`` (see the module docstring)."""
    if reply is None:
        return HttpResponse(status=202)
    status = 200
    if exchange.call.modern and isinstance(reply, dict) and "error" in reply:
        status = MODERN_ERROR_HTTP_STATUS.get(reply["error"]["code"], 200)
    if exchange.answer_as == "sse" and status == 200:
        return HttpResponse(
            b"event: message\ndata: " + dumps_bytes(reply) + b"\n\n",
            content_type="text/event-stream",
        )
    return json_answer(exchange.call.request, reply, status)


@login_not_required
@answers_in_json
def openrpc_document(request: HttpRequest, group: str, version: str | None = None) -> HttpResponse:
    """The OpenRPC document of one group/version: ``/mcp/<group>/[<version>/]openrpc.json``.

    A protected group's document needs the same credential as its endpoint (it describes
    every tool): the same refusals, from :func:`~mcp_bridge.transport.authorization.authorize`.
    """
    authorize(request, group)
    profile = read_profile(request)
    toolset = read_toolset(request, group, version)
    return JsonResponse(
        toolset.openrpc_in(profile),
        encoder=BridgeJSONEncoder,
        json_dumps_params={"ensure_ascii": False},
    )


@login_not_required
@csrf_exempt
@answers_in_json
def unknown_endpoint(request: HttpRequest, path: str) -> HttpResponse:
    """Any other path under the MCP URLs (``/mcp/CATALOG/``, ``/mcp/a/b/c/``): the JSON 404
    naming the known groups, for every method, rather than Django's HTML page."""
    try:
        check_groups([path.split("/")[0]], active_urlconf(request))
    except UnknownEndpoint as exc:
        raise Refused(INVALID_REQUEST, str(exc), 404) from None
    # A known group's name followed by a path the URL patterns do not route.
    raise Refused(INVALID_REQUEST, f"No MCP endpoint at {shorten(request.path)!r}.", 404)


@functools.lru_cache(maxsize=64)
def _answer_format(accept: str) -> AnswerFormat | None:
    probe = HttpRequest()
    probe.META["HTTP_ACCEPT"] = accept  # Django's own Accept parsing and matching
    if probe.accepts("application/json"):
        return "json"
    if probe.accepts("text/event-stream"):
        return "sse"
    return None


def protocol_revision(request: HttpRequest, message: Any) -> str:
    """The revision ``message`` is handled in: its ``MCP-Protocol-Version`` header, routed
    as the reference SDKs do.

    A handshake revision (or none: 2025-03-26) is the handshake era; any other value goes
    to the stateless era, whose envelope check rejects an unknown or malformed revision
    with a 400. A 2026-07-28 envelope under a handshake-era header contradicts itself; the
    stateless era's envelope check answers it with a header mismatch (-32020).
    """
    # request.headers would parse them all
    revision = request.META.get("HTTP_MCP_PROTOCOL_VERSION") or DEFAULT_HEADER_REVISION
    if revision in HANDSHAKE_REVISIONS:
        return MODERN_REVISIONS[-1] if _claims_modern_envelope(message) else revision
    return revision if revision in MODERN_REVISIONS else MODERN_REVISIONS[-1]


def _claims_modern_envelope(message: Any) -> bool:
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


def read_profile(request: HttpRequest) -> str:
    """The schema profile of the request (``?schema=``, else the setting).

    Raises:
        Refused: 400 for an unknown profile.
    """
    try:
        return profile_from_request(request, bridge_settings.SCHEMA_PROFILE)
    except ProfileError as exc:
        raise Refused(
            INVALID_REQUEST,
            str(exc),
            400,
            data={QUERY_PARAMETER: exc.value, "profiles": list(PROFILES)},
        ) from None


def read_toolset(
    request: HttpRequest,
    group: str,
    version: str | None,
    language: str | None = None,
    message: Any = None,
) -> ToolSet:
    """The tool set of ``group``/``version`` in ``language``.

    Raises:
        Refused: 404 for an unknown group or version
            (:func:`~mcp_bridge.toolset.registry.resolve_version`), a JSON-RPC 500 (with
            ``message``'s ``id``) when it cannot be built.
        SettingError: a key that guards access or confirmation names a group or tool that does
            not exist (:func:`~mcp_bridge.toolset.guards.refuse_unknown_names`).
    """
    urlconf = active_urlconf(request)  # once per request: every cache below is keyed on it
    try:
        resolved = resolve_version(group, version, urlconf)
    except UnknownEndpoint as exc:
        raise Refused(INVALID_REQUEST, str(exc), 404) from None
    try:
        toolset = get_toolset(group, resolved, language, urlconf)
    except ToolSetError as exc:
        logger.error("%s", exc)
        data = (
            {"problems": [{"id": p.id, "message": p.msg, "hint": p.hint} for p in exc.problems]}
            if settings.DEBUG
            else None
        )
        message_text = (
            str(exc)
            if settings.DEBUG
            else "Internal error: this MCP endpoint is misconfigured; see the server log."
        )
        raise Refused(
            INTERNAL_ERROR, message_text, 500, data, request_id=echoed_id(message)
        ) from None
    except Exception:  # a view or schema the build trips over: still the endpoint's JSON 500
        logger.exception(
            "The tools of API group %r (version %r) could not be built.", group, resolved
        )
        raise Refused(
            INTERNAL_ERROR,
            "Internal error: this MCP endpoint is misconfigured; see the server log.",
            500,
            request_id=echoed_id(message),
        ) from None
    # CONFIRM and its kin naming nothing: a JSON 500 naming the key (answers_in_json), not a
    # call that runs unguarded (mcp_bridge.toolset.guards).
    refuse_unknown_names(group, urlconf)
    return toolset


def negotiated_language(request: HttpRequest) -> str:
    """Negotiate the language of the tool texts (:func:`~mcp_bridge.build.translation.negotiate_language`)
    and set it as ``request.LANGUAGE_CODE``, as ``LocaleMiddleware`` does (which this makes
    unnecessary)."""
    language = negotiate_language(request)
    request.LANGUAGE_CODE = language
    return language


def labelled(response: HttpResponse, language: str) -> HttpResponse:
    """``response`` with ``Content-Language`` (RFC 9110 §8.5) and ``Accept-Language`` added to
    ``Vary`` (§12.5.5), so that shared caches keep one answer per language."""
    if header(response, "content-language") is None:
        put_header(response, "Content-Language", language)
    if header(response, "vary") is not None:
        patch_vary_headers(response, ("Accept-Language",))
    else:  # what patch_vary_headers would write, without parsing anything
        put_header(response, "Vary", "Accept-Language")
    return response


def misconfigured(exc: ImproperlyConfigured) -> HttpResponse:
    """The JSON-RPC error (HTTP 500) of a settings error met while answering.

    ``ImproperlyConfigured`` (an invalid ``MCP_BRIDGE``, raised on the first access of a
    setting) would otherwise reach Django, which answers its HTML error page: a client
    cannot read that. ``error.data.problems`` lists the check ids (E080, E081, each wrong
    key's own E201-E295: :func:`mcp_bridge.build.preflight.configuration_problems`), with
    the key (``"setting": 'MCP_BRIDGE["MAX_BODY_BYTES"]'``) of each that has one, and the
    message names the key and check id of the :class:`~mcp_bridge.base.conf.SettingError`
    raised: a key's name is no secret, and it tells the operator what to fix. The value, the
    full message and the hints are sent only when ``DEBUG`` is on (a value may be a secret); the
    log on ``mcp_bridge.transport`` always has the message.
    """
    logger.error("The MCP endpoint is misconfigured: %s", exc)
    problems = configuration_problems()
    message, public = str(exc), "this MCP endpoint is misconfigured; see the server log."
    if isinstance(exc, SettingError):
        message = f"{exc} ({exc.check_id})"
        if exc.setting is not None:
            public = (
                f"this MCP endpoint is misconfigured: {exc.label} {exc.fault} "
                f"({exc.check_id}); see the server log, or run `manage.py check`."
            )
        # A fault found where the value is used, which no check sees (a LOCK_BACKEND that
        # cannot be imported), is listed with the others.
        if all(p.id != exc.check_id for p in problems):
            problems.append(exc.problem())
    error: dict[str, Any] = {
        "code": INTERNAL_ERROR,
        "message": message if settings.DEBUG else f"Internal error: {public}",
        "data": {
            "problems": [
                {"id": p.id}
                | (
                    {"setting": f'MCP_BRIDGE["{SETTING_OF_CHECK[p.id]}"]'}
                    if p.id in SETTING_OF_CHECK
                    else {}
                )
                | ({"message": p.msg, "hint": p.hint} if settings.DEBUG else {})
                for p in problems
            ]
        },
    }
    body = dumps_bytes({"jsonrpc": "2.0", "id": None, "error": error})
    return HttpResponse(body, status=500, content_type="application/json")
