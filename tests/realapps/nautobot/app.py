"""Nautobot, a NetBox fork: the serializer shapes of a large network source of truth (nested
writable serializers, generic relations, content-type choices read from the database).

PostgreSQL only (Nautobot supports no SQLite); the database is ``mcp_bridge_realapps_nautobot``
on the server the bridge's tests use (settings.py).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import pathlib
from typing import Any

from tests.realapps.check import Call

NAME = "nautobot"
DISTRIBUTION = "nautobot"
GROUP = "nautobot"
API_VERSION = None
USER = "realapps"

_ids: dict[str, str] = {}


def installed_version() -> str:
    return importlib.metadata.version(DISTRIBUTION)


def setup(*, fresh: bool) -> None:
    import nautobot

    settings_path = pathlib.Path(__file__).with_name("settings.py")
    nautobot.setup(str(settings_path))
    _create_database(fresh)


def _create_database(fresh: bool) -> None:
    """Create the database when it is missing (dropped first with ``fresh``), through a
    connection to the server's ``postgres`` database."""
    from django.db import connections

    settings = connections["default"].settings_dict
    import psycopg2

    admin = psycopg2.connect(
        dbname="postgres",
        host=settings["HOST"],
        port=settings["PORT"] or None,
        user=settings["USER"],
        password=settings["PASSWORD"],
    )
    admin.autocommit = True
    with admin.cursor() as cursor:
        if fresh:
            cursor.execute(f'DROP DATABASE IF EXISTS "{settings["NAME"]}"')
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [settings["NAME"]])
        if cursor.fetchone() is None:
            cursor.execute(f'CREATE DATABASE "{settings["NAME"]}"')
    admin.close()


def context() -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext()


def cleanup() -> None:
    """Delete the keys Nautobot's cache wrote (its KEY_PREFIX, settings.py)."""
    from django.core.cache import cache

    cache.delete_pattern("*")


def seed() -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.contenttypes.models import ContentType
    from nautobot.dcim.models import Device, DeviceType, Location, LocationType, Manufacturer
    from nautobot.extras.models import Role, Status
    from nautobot.tenancy.models import Tenant

    get_user_model().objects.update_or_create(
        username=USER, defaults={"is_superuser": True, "is_staff": True}
    )
    device_type = ContentType.objects.get_for_model(Device)
    active = Status.objects.get(name="Active")
    site_type, _ = LocationType.objects.get_or_create(name="realapps-site-type")
    site_type.content_types.add(device_type)
    tenant, _ = Tenant.objects.get_or_create(name="realapps-tenant")
    site, _ = Location.objects.get_or_create(
        name="realapps-site",
        defaults={"location_type": site_type, "status": active, "tenant": tenant},
    )
    vendor, _ = Manufacturer.objects.get_or_create(name="realapps-vendor")
    model, _ = DeviceType.objects.get_or_create(model="realapps-switch", manufacturer=vendor)
    role, _ = Role.objects.get_or_create(name="realapps-role")
    role.content_types.add(device_type)
    device, _ = Device.objects.get_or_create(
        name="realapps-sw1",
        defaults={
            "device_type": model,
            "location": site,
            "status": active,
            "role": role,
            "tenant": tenant,
        },
    )
    _ids.update(device=str(device.pk), site=str(site.pk))


CALLS = [
    Call("dcim_locations_list", {}, "realapps-site"),
    Call("dcim_devices_list", {"name": ["realapps-sw1"]}, "realapps-sw1"),
    Call("dcim_devices_retrieve", lambda: {"id": _ids["device"]}, "realapps-sw1"),
    Call("tenancy_tenants_list", {}, "realapps-tenant"),
    Call("extras_statuses_list", {}, "Active"),
    Call("status_retrieve", {}, "nautobot-version"),
]
