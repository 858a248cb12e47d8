from django.db import models
from django.utils.translation import gettext_lazy as _

from tests.realistic.crm.models import Customer


class Category(models.Model):
    name = models.CharField(_("name"), max_length=100)
    slug = models.SlugField(_("slug"), unique=True)
    parent = models.ForeignKey(
        "self", models.CASCADE, null=True, blank=True, related_name="children"
    )

    class Meta:
        verbose_name = _("category")
        verbose_name_plural = _("categories")


class Product(models.Model):
    name = models.CharField(_("name"), max_length=200)
    sku = models.CharField(_("SKU"), max_length=40, unique=True, help_text=_("Stock keeping unit."))
    category = models.ForeignKey(Category, models.PROTECT, related_name="products")
    price = models.DecimalField(_("price"), max_digits=10, decimal_places=2)
    description = models.TextField(_("description"), blank=True)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("product")
        verbose_name_plural = _("products")


class Cart(models.Model):
    customer = models.ForeignKey(Customer, models.CASCADE, related_name="carts")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("shopping cart")
        verbose_name_plural = _("shopping carts")


class CartItem(models.Model):
    cart = models.ForeignKey(Cart, models.CASCADE, related_name="items")
    product = models.ForeignKey(Product, models.CASCADE)
    quantity = models.PositiveIntegerField(_("quantity"), default=1)

    class Meta:
        verbose_name = _("cart item")
        verbose_name_plural = _("cart items")


class Order(models.Model):
    """A customer's purchase: what was bought, where it goes, and how far it has got."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        PAID = "paid", _("Paid")
        SHIPPED = "shipped", _("Shipped")
        DELIVERED = "delivered", _("Delivered")
        CANCELLED = "cancelled", _("Cancelled")

    number = models.CharField(_("number"), max_length=30, unique=True)
    customer = models.ForeignKey(Customer, models.PROTECT, related_name="orders")
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    placed_at = models.DateTimeField(_("placed"), auto_now_add=True)
    total = models.DecimalField(_("total"), max_digits=12, decimal_places=2, default=0)
    shipping_address = models.TextField(_("shipping address"))
    tracking_number = models.CharField(_("tracking number"), max_length=60, blank=True)

    class Meta:
        ordering = ["-placed_at"]
        verbose_name = _("order")
        verbose_name_plural = _("orders")


class Review(models.Model):
    product = models.ForeignKey(Product, models.CASCADE, related_name="reviews")
    customer = models.ForeignKey(Customer, models.CASCADE)
    rating = models.PositiveSmallIntegerField(_("rating"))
    comment = models.TextField(_("comment"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("review")
        verbose_name_plural = _("reviews")


class Coupon(models.Model):
    code = models.CharField(_("code"), max_length=30, unique=True)
    discount_percent = models.PositiveSmallIntegerField(_("discount percent"))
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        verbose_name = _("coupon")
        verbose_name_plural = _("coupons")
