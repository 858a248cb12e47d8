"""A build as bytes, and back.

**What is stored.** The tool set itself, whole and generic: the pickled
:class:`~mcp_bridge.toolset.registry.ToolSet` with everything it holds when it is stored
(its tools, methods, OpenRPC document, warnings, and what later requests cached on it: the
encoded ``tools/list`` pages, profiled documents...), so that a field added to the tool set
later is stored too. Each class leaves out what cannot or need not survive
(``Tool.__getstate__``: the compiled validators, made again on first use), and the tools,
methods and operation sources keep what only a call reads (schemas, arguments, the OpenAPI
operation) packed, one ``bytes`` object each, until a call reads it
(:mod:`mcp_bridge.store.packing`). A group that cannot be built is stored as its
:class:`~mcp_bridge.base.errors.ToolSetError`, so that it is refused from the store as from a
build, with the same problems.

**Signed.** A stored build is a pickle, and unpickling runs code: whoever could write the store
(its directory, its Redis key) could run code in every process that loads from it. So each build
is signed with an HMAC-SHA256 keyed on the project's ``SECRET_KEY`` (Django's
``salted_hmac``, with a salt of its own), and :func:`loads` unpickles nothing whose signature
does not verify with ``SECRET_KEY`` or one of ``SECRET_KEY_FALLBACKS`` (so that a key rotated
the way Django documents still loads the builds of the previous key until they are replaced):
it raises :class:`UntrustedBuild`, and the process builds the group itself. The bytes are
``MAGIC``, the 32-byte signature, then the compressed pickle: a raw DEFLATE stream
(:func:`compress`), without zlib's header and Adler-32 checksum, which the signature makes
redundant (the checksum alone counted more instructions than inflating itself).

**View classes.** A class is stored by its import path, as pickle stores classes, when that
path leads back to it. A view class made at run time (``@api_view``'s ``WrappedAPIView``, a
viewset made by a factory) has no such path: it is stored by the URL pattern that routes to
it (its path regex) and found again in the loading process's own URLconf walk. A build that
names a pattern the URLconf no longer has is not loaded (it is built again).
"""

from __future__ import annotations

import gc
import io
import pickle
import sys
import zlib
from typing import Any

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

from mcp_bridge.build.openapi import UrlIndex
from mcp_bridge.store import packing

#: The layout of a stored build; a change of it changes every key.
FORMAT = 4  # 2: the cold parts packed (store.packing); 3: signed; 4: raw DEFLATE
#: What every stored build starts with, before its signature.
MAGIC = b"mcp_bridge build\n"
#: The salt of the signature's key (``salted_hmac``): a key of its own, derived from SECRET_KEY.
_SALT = "mcp_bridge.store.codec.build"
_SIGNATURE_SIZE = 32  # SHA-256
#: zlib level of a stored build: its pages repeat the same ``$defs`` over and over, so a fast
#: level already shrinks them many times. Level 3 costs what level 1 costs to write (13 ms for
#: a 1,000-operation group's 5.9 MB), and stores 15 % less, which inflates in 8 % less time.
_COMPRESSION_LEVEL = 3
#: zlib's ``wbits`` for a raw DEFLATE stream of the largest window: no header, no Adler-32.
#: Inflating a 1,000-operation group's 5.9 MB counts 39 M instructions with the checksum and
#: 18 M without it; the HMAC (:func:`sign`) already refuses any byte changed.
_RAW_DEFLATE = -zlib.MAX_WBITS


def compress(pickled: bytes) -> bytes:
    """``pickled`` as the raw DEFLATE stream that :func:`sign` signs and :func:`loads` reads."""
    compressor = zlib.compressobj(_COMPRESSION_LEVEL, zlib.DEFLATED, _RAW_DEFLATE)
    return compressor.compress(pickled) + compressor.flush()


def inflate(compressed: bytes) -> bytes:
    """The bytes of :func:`compress`. Raises ``zlib.error`` where they are no DEFLATE stream."""
    return zlib.decompress(compressed, _RAW_DEFLATE)


class StaleBuild(Exception):
    """A stored build that does not fit this process (a view class it names is gone)."""


class UntrustedBuild(Exception):
    """Stored bytes whose signature does not verify with this project's ``SECRET_KEY`` (nor a
    fallback): tampered with, written by another project or key, or not a build at all. They are
    never unpickled."""


def _signature(data: bytes, secret: Any = None) -> bytes:
    return salted_hmac(_SALT, data, secret=secret, algorithm="sha256").digest()


def sign(data: bytes) -> bytes:
    """``data`` (a compressed pickle) with :data:`MAGIC` and its signature in front."""
    return MAGIC + _signature(data) + data


def verified(stored: bytes) -> bytes:
    """The compressed pickle of signed bytes, once its signature verifies with ``SECRET_KEY``
    or one of ``SECRET_KEY_FALLBACKS``.

    Raises:
        UntrustedBuild: it does not.
    """
    if not stored.startswith(MAGIC):
        raise UntrustedBuild(
            "it is not a signed build (written by another version, or not a build)"
        )
    start = len(MAGIC)
    signature, data = stored[start : start + _SIGNATURE_SIZE], stored[start + _SIGNATURE_SIZE :]
    for secret in (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ())):
        if constant_time_compare(signature, _signature(data, secret)):
            return data
    raise UntrustedBuild(
        "its signature does not verify with SECRET_KEY or SECRET_KEY_FALLBACKS (tampered with, "
        "or written by a process with another SECRET_KEY)"
    )


def _importable(cls: type) -> bool:
    """Whether pickle's reference to ``cls`` (module and qualified name) leads back to it."""
    target: Any = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        target = getattr(target, part, None)
    return target is cls


class _Pickler(pickle.Pickler):
    def __init__(self, file: Any, routes: dict[type, str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.routes = routes

    def persistent_id(self, obj: Any) -> Any:
        # A view class made at run time: by the URL pattern that routes to it.
        if isinstance(obj, type) and obj in self.routes and not _importable(obj):
            return ("view", self.routes[obj], obj.__qualname__)
        return None

    def reducer_override(self, obj: Any) -> Any:
        # A tool, method or operation source: with what only a call reads packed.
        if packing.packed_class(obj) is not None:
            return packing.reduce(obj)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, views: dict[str, type]) -> None:
        super().__init__(file)
        self.views = views

    def persistent_load(self, pid: Any) -> Any:
        kind, regex, qualname = pid
        cls = self.views.get(regex)
        if kind != "view" or cls is None or cls.__qualname__ != qualname:
            raise StaleBuild(f"the view {qualname} at {regex!r} is not in the URLconf")
        return cls


_SCALARS = (int, float, bool, type(None))


class _Sharing:
    """One object for every group of equal JSON values of a build (hash-consing).

    A build holds the same schemas many times over: the field schemas of similar
    serializers, each argument's schema in its method and in its tool's ``inputSchema``,
    the OpenAPI operations, the OpenRPC document. A JSON value (a non-empty dict or list of
    JSON values, or a string) equal to one met before, with the same key order, is replaced
    by that one, so that the stored build, and every process that loads it, holds it once.

    Built schemas are never changed in place (a translation or a profile makes new
    objects), so sharing them is safe. What may change after the build is left alone:
    containers holding anything but JSON (the pages, keyed by tuples; a list of problems)
    keep their identity, and so does an empty container or one held by an attribute whose
    name starts with ``_`` (a cache); only the JSON values inside them are shared.
    """

    def __init__(self) -> None:
        self.canonical: dict[Any, Any] = {}
        self.strings: dict[str, str] = {}
        self.visited: dict[int, tuple[Any, Any, bool]] = {}  # id -> (object, replacement, pure)
        self.packed: list[Any] = []  # the instances met that keep fields packed

    def value(self, value: Any, shareable: bool = True) -> tuple[Any, bool]:
        """``(the shared value, whether it is pure JSON)``."""
        kind = type(value)
        if kind is str:
            return self.strings.setdefault(value, value), True
        if kind in _SCALARS:
            return value, True
        known = self.visited.get(id(value))
        if known is not None:
            return (known[1] if shareable else value), known[2]
        if kind is dict or kind is list:
            return self._container(value, shareable)
        self.visited[id(value)] = (value, value, False)
        if packing.packed_class(value) is not None:
            self.packed.append(value)
        if kind.__module__.startswith("mcp_bridge.") and hasattr(value, "__dict__"):
            for name, attribute in list(vars(value).items()):
                shared, _ = self.value(attribute, shareable=not name.startswith("_"))
                if shared is not attribute:
                    object.__setattr__(value, name, shared)  # frozen dataclasses too
        return value, False

    def _container(self, value: Any, shareable: bool) -> tuple[Any, bool]:
        # The hot loop of the sharing (every node of a build): strings and numbers are
        # handled inline rather than through value().
        visited = self.visited
        strings = self.strings
        visited[id(value)] = (value, value, False)  # a cycle meets the container itself
        is_dict = type(value) is dict
        pure = True
        signature: list[Any] = []
        for key, item in value.items() if is_dict else enumerate(value):
            kind = type(item)
            if kind is str:
                shared = strings.setdefault(item, item)
                if shared is not item:
                    value[key] = shared  # a value replaced, never a key added: iteration holds
                signature.append((key, shared))
                continue
            if kind in _SCALARS:
                signature.append((key, kind, item))
                continue
            shared, item_pure = self.value(item)
            if shared is not item:
                value[key] = shared
            pure = pure and item_pure
            signature.append((key, id(shared)))
        if is_dict and pure:
            pure = all(type(key) is str for key in value)
        result = value
        if pure and shareable and signature:
            result = self.canonical.setdefault((is_dict, tuple(signature)), value)
        visited[id(value)] = (value, result, pure)
        return (result if shareable else value), pure


def share_equal_values(build: Any) -> list[Any]:
    """Make the equal JSON values of a build one object each (see :class:`_Sharing`), in place.

    Returns:
        The build's instances that keep fields packed when stored
        (:data:`~mcp_bridge.store.packing.PACKED_FIELDS`).
    """
    walk = _Sharing()
    walk.value(build)
    return walk.packed


def dumps(build: Any, index: UrlIndex) -> bytes:
    """A built tool set (or the :class:`ToolSetError` of a group that cannot be built) as
    stored bytes.

    Raises:
        pickle.PicklingError, TypeError, AttributeError: it holds an object that cannot be
            stored (a lambda in a decorator's metadata, say); the build is then not stored.
    """
    routes: dict[type, str] = {}
    for regex, cls in index.api_path_regexes:
        routes.setdefault(cls, regex)
    packed = share_equal_values(build)
    buffer = io.BytesIO()
    # The values that several tools' packed fields share stay one object each once unpacked.
    with packing.sharing(packed):
        _Pickler(buffer, routes).dump((FORMAT, build))
    return sign(compress(buffer.getvalue()))


def _to_oldest_generation() -> None:
    """Move the objects just loaded to the collector's oldest generation, unwalked.

    Made with the collector paused, a build's objects sit in its youngest generation: the
    next young collection walks them all (the first after a 5,000-operation load: 140 ms),
    the next middle one again, and, counted then as newly long-lived, they set off a full
    collection (400 ms), all inside the first requests, though none of them can be garbage.
    ``gc.freeze()`` then ``gc.unfreeze()`` moves every tracked object to the oldest generation
    without walking any, as if they had survived those collections, which a full collection
    still walks when its own threshold calls it. The objects the program made just before
    move with them (a garbage cycle among them waits for that full collection too). Not done
    when the program froze objects of its own (a pre-forking server's, say): ``unfreeze()``
    would hand them back to the collector.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def loads(data: bytes, index: UrlIndex) -> Any:
    """The tool set or :class:`ToolSetError` of :func:`dumps`, its view classes this process's.

    Raises:
        UntrustedBuild: its signature does not verify (nothing is unpickled).
        StaleBuild: it names a view that this process's URLconf does not route to.
    """
    data = verified(data)
    views: dict[str, type] = {}
    for regex, cls in index.api_path_regexes:
        views.setdefault(regex, cls)
    unpickler = _Unpickler(io.BytesIO(inflate(data)), views)
    # A build is tens of thousands of containers made at once: the garbage collector would
    # walk them again and again as they are made (a 1,000-operation group took 25 ms to load
    # without it, up to 90 ms with it), and none of them can be garbage yet.
    collecting = gc.isenabled()
    gc.disable()
    try:
        stored_format, build = unpickler.load()
        _to_oldest_generation()
    finally:
        if collecting:
            gc.enable()
    if stored_format != FORMAT:
        raise StaleBuild(f"the build has format {stored_format}, not {FORMAT}")
    return build
