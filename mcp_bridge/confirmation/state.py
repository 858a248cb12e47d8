"""The ``requestState`` of an ``InputRequiredResult``: signed, bound, expiring, and used once
where it carries a confirmation.

The specification makes ``requestState`` attacker-controlled input (SEP-2322, "Server
requirements" 4 and 5): its integrity must be protected, and it should be bound to the
principal, a short expiry and the originating request. Here it is a Django signed value
(:mod:`django.core.signing`, HMAC-SHA256 keyed by ``SECRET_KEY`` and a salt of its own,
timestamped), whose payload binds:

* ``t``: the tool name, ``g``: the group, ``v``: the API version;
* ``a``: a digest of the exact arguments (SHA-256 of their canonical JSON);
* ``u``: the caller (:func:`caller_identity`);
* ``n``: a random nonce, the key of its single use;
* ``c``: the confirmation it carries: ``"ask"`` (the form was asked with it), ``"done"`` (given
  on an earlier round, still to be used), ``"page"`` (asked in the call's MCP App page, used
  only by its confirming tool: :mod:`~mcp_bridge.confirmation.in_page`) or ``None``;
* ``s``: the view's own state (:class:`~mcp_bridge.confirmation.inputs.InputRequired`).

A state that fails any of these is refused with a :class:`StateRefused` naming why; nothing
runs. A state that carries a confirmation is recorded as used in a shared cache
(``MCP_BRIDGE["CONFIRM_CACHE"]``) with an atomic ``cache.add`` before the view runs, so a
second retry with it is refused on any worker and machine that shares that cache.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.cache import caches
from django.http import HttpRequest

from mcp_bridge.base.conf import bridge_settings

#: The salt of every ``requestState`` signature: a value signed for anything else of the
#: project (a session, a password reset link) is never a valid state.
SALT = "mcp_bridge.confirmation.request_state"
#: The prefix of the cache keys that record used states.
USED_PREFIX = "mcp_bridge:confirmation:used:"

#: Why a state is refused (``StateRefused.reason``), as the tool-call signals report it.
TAMPERED = "tampered"
EXPIRED = "expired"
REPLAYED = "replayed"
OTHER_CALL = "other_call"  # another tool, group, version or other arguments
OTHER_CALLER = "other_caller"
#: A state issued for a confirmation in a page, presented anywhere but that page's confirming
#: tool, or another state presented there (:mod:`~mcp_bridge.confirmation.in_page`).
PAGE_ONLY = "page_only"


class StateRefused(Exception):
    """A ``requestState`` that this call cannot use.

    Attributes:
        reason: :data:`TAMPERED`, :data:`EXPIRED`, :data:`REPLAYED`, :data:`OTHER_CALL` or
            :data:`OTHER_CALLER`.
        message: what the client reads: what is wrong and what to do.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def arguments_digest(arguments: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``arguments``: keys sorted, no spaces."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def caller_identity(request: HttpRequest) -> str:
    """Who calls, as the state binds it: a digest of the credentials the request carries (its
    ``Authorization`` header and session cookie); for a request without either, the user
    that middleware authenticated (``user:<pk>``, e.g. ``RemoteUserMiddleware``); else
    ``"anonymous"``.

    The credentials, not the user, because they are what the request proves, and they read
    the same before and after the views of the call authenticate them. The same person with
    another token (a refreshed OAuth access token) is another caller: the state is refused
    and the person confirms again.
    """
    credentials = "\x00".join(
        (
            request.META.get("HTTP_AUTHORIZATION", ""),
            request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""),
        )
    )
    if credentials != "\x00":
        digest = hashlib.sha256(credentials.encode("utf-8", "replace")).hexdigest()
        return "credentials:" + digest[:32]
    user = getattr(request, "user", None)
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return "anonymous"


def sign_state(
    *,
    tool: str,
    group: str,
    version: str | None,
    arguments: Any,
    caller: str,
    confirm: str | None,
    view_state: Any = None,
) -> str:
    """The signed ``requestState`` of one ``InputRequiredResult`` (see the module)."""
    payload = {
        "t": tool,
        "g": group,
        "v": version,
        "a": arguments_digest(arguments),
        "u": caller,
        "n": secrets.token_urlsafe(16),
        "c": confirm,
        "s": view_state,
    }
    return signing.dumps(payload, salt=SALT, compress=True)


def verify_state(
    token: str,
    *,
    tool: str,
    group: str,
    version: str | None,
    arguments: Any,
    caller: str,
) -> dict[str, Any]:
    """The payload of ``token``, when it was signed here for this very call.

    Raises:
        StateRefused: the signature does not verify (:data:`TAMPERED`), it is older than
            ``MCP_BRIDGE["CONFIRM_TTL"]`` seconds (:data:`EXPIRED`), it was made for another
            tool, group, version or other arguments (:data:`OTHER_CALL`) or for another
            caller (:data:`OTHER_CALLER`).
    """
    ttl = bridge_settings.CONFIRM_TTL
    try:
        payload = signing.loads(token, salt=SALT, max_age=ttl)
    except signing.SignatureExpired:
        raise StateRefused(
            EXPIRED,
            f"The requestState has expired (it is valid for {ttl} seconds); nothing was done. "
            "Call the tool again without inputResponses and requestState to be asked again.",
        ) from None
    except signing.BadSignature:
        raise StateRefused(
            TAMPERED,
            "The requestState is not one this server issued, or it was changed; nothing was "
            "done. Send back the requestState exactly as received, or call the tool again "
            "without it.",
        ) from None
    if not isinstance(payload, dict):
        raise StateRefused(TAMPERED, "The requestState is malformed; nothing was done.")
    if (payload.get("t"), payload.get("g"), payload.get("v")) != (tool, group, version) or (
        payload.get("a") != arguments_digest(arguments)
    ):
        raise StateRefused(
            OTHER_CALL,
            "The requestState belongs to another call (another tool or other arguments); "
            "nothing was done. A retry must repeat the original call's name and arguments "
            "exactly; to change them, call the tool again without requestState.",
        )
    if payload.get("u") != caller:
        raise StateRefused(
            OTHER_CALLER,
            "The requestState was issued to another caller; nothing was done. Call the tool "
            "again without requestState to be asked yourself.",
        )
    return payload


def use_once(payload: dict[str, Any]) -> None:
    """Record that the state of ``payload`` is used, atomically in the shared cache.

    ``cache.add`` stores a key only when it is absent: on Redis (``SET NX``), Memcached and
    the database cache that is atomic across processes and machines, so of two retries with
    the same state exactly one gets here. The record lives as long as the state could be
    valid (``CONFIRM_TTL``), after which the signature refuses it anyway.

    Raises:
        StateRefused: :data:`REPLAYED`, the state was used before.
    """
    cache = caches[bridge_settings.CONFIRM_CACHE]
    ttl = int(bridge_settings.CONFIRM_TTL) + 60  # the clock skew between machines, generously
    if not cache.add(USED_PREFIX + str(payload.get("n")), 1, timeout=ttl):
        raise StateRefused(
            REPLAYED,
            "This confirmation was already used: the call it confirmed has run, and it runs "
            "at most once; nothing was done this time. To do it again, call the tool again "
            "without inputResponses and requestState, and confirm again.",
        )
