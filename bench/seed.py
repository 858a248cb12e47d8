"""Create the benchmark database: migrate, then the same deterministic rows every time.

Prints the API token of the benchmark user (``bench``), which every request carries.
Run in either virtualenv with ``DJANGO_SETTINGS_MODULE`` set; it is idempotent.
"""

import datetime
import os
from decimal import Decimal

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
django.setup()

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from bench.shop.models import Category, Item

ITEMS = 200
TOKEN = "b3nchb3nchb3nchb3nchb3nchb3nchb3nchb3nc"


def main() -> None:
    settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
    call_command("migrate", verbosity=0, interactive=False)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    Token.objects.get_or_create(user=user, defaults={"key": TOKEN})
    if not Item.objects.exists():
        categories = [
            Category.objects.create(name=f"Category {i}", slug=f"category-{i}") for i in range(5)
        ]
        start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
        Item.objects.bulk_create(
            Item(
                name=f"Item {i}",
                slug=f"item-{i}",
                description=f"Item number {i}: a sturdy thing with a description of ordinary length. "
                * 2,
                price=Decimal(i * 7 % 500) + Decimal("0.99"),
                stock=i % 13,
                is_active=i % 7 != 0,
                created_at=start + datetime.timedelta(hours=i),
                category=categories[i % len(categories)],
            )
            for i in range(ITEMS)
        )
    print(Token.objects.get(user=user).key)


if __name__ == "__main__":
    main()
