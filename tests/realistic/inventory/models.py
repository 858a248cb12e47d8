from django.db import models
from django.utils.translation import gettext_lazy as _

from tests.realistic.commerce.models import Product


class Warehouse(models.Model):
    name = models.CharField(_("name"), max_length=100)
    code = models.CharField(_("code"), max_length=10, unique=True)
    address = models.TextField(_("address"), blank=True)

    class Meta:
        verbose_name = _("warehouse")
        verbose_name_plural = _("warehouses")


class Supplier(models.Model):
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("email"), blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    country = models.CharField(_("country"), max_length=2, blank=True)

    class Meta:
        verbose_name = _("supplier")
        verbose_name_plural = _("suppliers")


class StockItem(models.Model):
    """How many units of a product one warehouse holds, and where."""

    product = models.ForeignKey(Product, models.CASCADE, related_name="stock_items")
    warehouse = models.ForeignKey(Warehouse, models.CASCADE, related_name="stock_items")
    quantity = models.IntegerField(_("quantity"), default=0)
    reorder_level = models.PositiveIntegerField(_("reorder level"), default=0)
    bin_location = models.CharField(_("bin location"), max_length=30, blank=True)

    class Meta:
        verbose_name = _("stock item")
        verbose_name_plural = _("stock items")


class PurchaseOrder(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        ORDERED = "ordered", _("Ordered")
        RECEIVED = "received", _("Received")
        CANCELLED = "cancelled", _("Cancelled")

    supplier = models.ForeignKey(Supplier, models.PROTECT, related_name="purchase_orders")
    warehouse = models.ForeignKey(Warehouse, models.PROTECT)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.DRAFT
    )
    ordered_at = models.DateField(_("ordered"), null=True, blank=True)
    expected_at = models.DateField(_("expected"), null=True, blank=True)

    class Meta:
        verbose_name = _("purchase order")
        verbose_name_plural = _("purchase orders")
