"""Cache invalidation of the shop: a write to a category drops the cached category tree.

``CategoryViewSet.list`` is cached under the tag ``categories``. Categories are
edited in the admin, not through the API, so the invalidation hangs on the
model's signals rather than on an ``@invalidates`` write action: any save or
delete, wherever it comes from, takes effect on the next read after its commit.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from mcp_bridge.caching import invalidate_tags_on_commit

from .models import Category


@receiver([post_save, post_delete], sender=Category, dispatch_uid="shop.invalidate_category_tree")
def invalidate_category_tree(sender, **kwargs) -> None:
    invalidate_tags_on_commit("categories")
