"""pretix, a ticket shop: an API versioned by namespace (``api-v1``), querysets scoped per
organizer with django-scopes, nested organizer/event routes. SQLite, in the data directory
scripts/realapps keeps beside the virtualenv.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import pathlib
import shutil
from typing import Any

from tests.realapps.check import Call

NAME = "pretix"
DISTRIBUTION = "pretix"
GROUP = "pretix"
# The endpoint /mcp/pretix/api-v1/: the version settings.py names (see there why).
API_VERSION = "api-v1"
USER = "realapps@example.com"


def installed_version() -> str:
    return importlib.metadata.version(DISTRIBUTION)


def setup(*, fresh: bool) -> None:
    data = pathlib.Path(os.environ["REALAPPS_DATA"])
    if fresh and data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True, exist_ok=True)
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.realapps.pretix.settings"
    import django

    django.setup()


def context() -> contextlib.AbstractContextManager[Any]:
    # pretix scopes every queryset to an organizer (django-scopes); its middleware activates
    # the scope per request. The build and the seeding run outside any request.
    from django_scopes import scopes_disabled

    return scopes_disabled()


def cleanup() -> None:
    """Nothing to clean: pretix's data live in ``REALAPPS_DATA``, kept for the next run."""


def seed() -> None:
    from django.utils import timezone
    from pretix.base.models import Event, Item, Organizer, Team, User

    user = User.objects.filter(email=USER).first() or User.objects.create_user(USER, "realapps")
    organizer, _ = Organizer.objects.get_or_create(slug="realapps", defaults={"name": "Realapps"})
    team, _ = Team.objects.get_or_create(
        organizer=organizer,
        name="Realapps admins",
        defaults={
            "all_events": True,
            "all_event_permissions": True,
            "all_organizer_permissions": True,
        },
    )
    team.members.add(user)
    event, _ = Event.objects.get_or_create(
        organizer=organizer,
        slug="conf",
        defaults={
            "name": "Realapps Conference",
            "date_from": timezone.now(),
            "currency": "EUR",
        },
    )
    Item.objects.get_or_create(event=event, name="Realapps ticket", defaults={"default_price": 10})


EVENT = {"organizer": "realapps", "event": "conf"}
# The read tools a caller of the seeded data would use. Not called yet: `manage.py mcp_call
# --user` gives the view's request no `session`, which pretix's permission class reads for a
# signed-in user (AttributeError, 500), and pretix's API middleware, which sets
# `request.organizer` for organizer-level routes, does not run for the view's request. Set
# CALLS = READS when the bridge gives both.
READS = [
    Call("me", {}, USER),
    Call("organizer_list", {}, "Realapps"),
    Call("event_list", {"organizer": "realapps"}, "Realapps Conference"),
    Call("event_retrieve", EVENT, "Realapps Conference"),
    Call("item_list", EVENT, "Realapps ticket"),
    Call("team_list", {"organizer": "realapps"}, "Realapps admins"),
]
CALLS: list[Call] = []
