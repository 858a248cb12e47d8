"""Catalog (categories, tags, products) and customer orders.

Every field has a ``help_text``: drf-spectacular copies it into the OpenAPI
schema, and from there it becomes the description of a tool argument or result
field, which is often all an AI agent knows about the field.
"""

from decimal import Decimal

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _


class Category(models.Model):
    name = models.CharField(_("name"), max_length=100, help_text=_("Display name of the category."))
    slug = models.SlugField(
        _("slug"), max_length=100, unique=True, help_text=_("Unique URL-friendly identifier.")
    )
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="children",
        verbose_name=_("parent"),
        help_text=_("The enclosing category; empty for a top-level category."),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("category")
        verbose_name_plural = _("categories")

    def __str__(self) -> str:
        return self.name

    def descendant_ids(self) -> list[int]:
        """Ids of this category and of all categories below it, at any depth."""
        ids, level = [self.pk], [self.pk]
        # One query per level of the tree; catalogs are shallow, so this stays cheap.
        while level:
            level = list(Category.objects.filter(parent__in=level).values_list("pk", flat=True))
            ids += level
        return ids


class Tag(models.Model):
    name = models.CharField(
        _("name"), max_length=50, unique=True, help_text=_("Display name of the tag.")
    )
    # Unique because API clients refer to tags by slug.
    slug = models.SlugField(
        _("slug"), max_length=50, unique=True, help_text=_("Unique URL-friendly identifier.")
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("tag")
        verbose_name_plural = _("tags")

    def __str__(self) -> str:
        return self.name


class Product(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        ACTIVE = "active", _("Active")
        DISCONTINUED = "discontinued", _("Discontinued")

    name = models.CharField(_("name"), max_length=200, help_text=_("Display name of the product."))
    slug = models.SlugField(
        _("slug"),
        max_length=200,
        unique=True,
        help_text=_("Unique URL-friendly identifier; products are looked up by it."),
    )
    description = models.TextField(
        _("description"),
        blank=True,
        help_text=_("Longer description of the product; may be empty."),
    )
    price = models.DecimalField(
        _("price"),
        max_digits=10,
        decimal_places=2,
        validators=[MinValueValidator(Decimal("0.00"))],
        help_text=_("Current unit price in EUR, including VAT."),
    )
    status = models.CharField(
        _("status"),
        max_length=20,
        choices=Status.choices,
        default=Status.ACTIVE,
        help_text=_(
            "Publication state: only active products can be ordered; "
            "drafts are visible to staff only."
        ),
    )
    category = models.ForeignKey(
        Category,
        on_delete=models.PROTECT,
        related_name="products",
        verbose_name=_("category"),
        help_text=_("Id of the category the product belongs to."),
    )
    tags = models.ManyToManyField(
        Tag,
        blank=True,
        related_name="products",
        verbose_name=_("tags"),
        help_text=_("Slugs of the tags attached to the product."),
    )
    stock = models.PositiveIntegerField(
        _("stock"), default=0, help_text=_("Number of units available for immediate shipping.")
    )
    weight_grams = models.PositiveIntegerField(
        _("weight (g)"),
        null=True,
        blank=True,
        help_text=_("Shipping weight in grams; null when unknown."),
    )
    created_at = models.DateTimeField(
        _("created at"),
        auto_now_add=True,
        help_text=_("When the product was added to the catalog."),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("product")
        verbose_name_plural = _("products")

    def __str__(self) -> str:
        return self.name


class Order(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        PAID = "paid", _("Paid")
        CANCELLED = "cancelled", _("Cancelled")

    customer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="orders",
        verbose_name=_("customer"),
        help_text=_("Username of the customer who placed the order."),
    )
    status = models.CharField(
        _("status"),
        max_length=20,
        choices=Status.choices,
        default=Status.PENDING,
        help_text=_("Order state: pending until paid; only pending orders can be cancelled."),
    )
    note = models.TextField(
        _("note"), blank=True, help_text=_("Free-text note from the customer, e.g. delivery hints.")
    )
    created_at = models.DateTimeField(
        _("created at"), auto_now_add=True, help_text=_("When the order was placed.")
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("order")
        verbose_name_plural = _("orders")

    def __str__(self) -> str:
        return f"Order #{self.pk} ({self.get_status_display()})"

    @property
    def total(self) -> Decimal:
        """Sum of all line totals.

        Computed in Python from ``items.all()`` so that it reuses a
        ``prefetch_related("items")`` instead of issuing one query per order.
        """
        return sum((item.line_total for item in self.items.all()), Decimal("0.00"))


class OrderItem(models.Model):
    order = models.ForeignKey(
        Order,
        on_delete=models.CASCADE,
        related_name="items",
        verbose_name=_("order"),
        help_text=_("The order this line belongs to."),
    )
    # PROTECT keeps order history intact: a product that was ever ordered is discontinued,
    # not deleted.
    product = models.ForeignKey(
        Product,
        on_delete=models.PROTECT,
        related_name="order_items",
        verbose_name=_("product"),
        help_text=_("Id of the ordered product."),
    )
    quantity = models.PositiveIntegerField(
        _("quantity"),
        validators=[MinValueValidator(1)],
        help_text=_("Number of units ordered (at least 1)."),
    )
    unit_price = models.DecimalField(
        _("unit price"),
        max_digits=10,
        decimal_places=2,
        help_text=_("Price of one unit in EUR at the time of ordering."),
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("order item")
        verbose_name_plural = _("order items")

    def __str__(self) -> str:
        return f"{self.quantity} × {self.product}"

    @property
    def line_total(self) -> Decimal:
        return self.quantity * self.unit_price
