from django.db import models
from django.utils.translation import gettext_lazy as _

from tests.realistic.crm.models import Customer


class TaxRate(models.Model):
    name = models.CharField(_("name"), max_length=100)
    rate = models.DecimalField(_("rate"), max_digits=5, decimal_places=2, help_text=_("Percent."))
    country = models.CharField(_("country"), max_length=2)

    class Meta:
        verbose_name = _("tax rate")
        verbose_name_plural = _("tax rates")


class Invoice(models.Model):
    """A bill sent to a customer for goods or services, due by a date."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        SENT = "sent", _("Sent")
        PAID = "paid", _("Paid")
        OVERDUE = "overdue", _("Overdue")
        VOID = "void", _("Void")

    number = models.CharField(_("number"), max_length=30, unique=True)
    customer = models.ForeignKey(Customer, models.PROTECT, related_name="invoices")
    issue_date = models.DateField(_("issue date"))
    due_date = models.DateField(_("due date"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.DRAFT
    )
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    total = models.DecimalField(_("total"), max_digits=12, decimal_places=2, default=0)
    tax_rate = models.ForeignKey(TaxRate, models.SET_NULL, null=True, blank=True)
    notes = models.TextField(_("notes"), blank=True)

    class Meta:
        ordering = ["-issue_date"]
        verbose_name = _("invoice")
        verbose_name_plural = _("invoices")


class Payment(models.Model):
    class Method(models.TextChoices):
        CARD = "card", _("Card")
        BANK_TRANSFER = "bank_transfer", _("Bank transfer")
        CASH = "cash", _("Cash")

    invoice = models.ForeignKey(Invoice, models.CASCADE, related_name="payments")
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    method = models.CharField(_("method"), max_length=20, choices=Method.choices)
    received_at = models.DateTimeField(_("received"))
    reference = models.CharField(_("reference"), max_length=100, blank=True)
    refunded = models.BooleanField(_("refunded"), default=False)

    class Meta:
        ordering = ["-received_at"]
        verbose_name = _("payment")
        verbose_name_plural = _("payments")


class CreditNote(models.Model):
    """A document that reduces what a customer owes on an invoice."""

    invoice = models.ForeignKey(Invoice, models.CASCADE, related_name="credit_notes")
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    reason = models.CharField(_("reason"), max_length=200)
    issued_at = models.DateField(_("issued"))

    class Meta:
        verbose_name = _("credit note")
        verbose_name_plural = _("credit notes")


class Subscription(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        PAUSED = "paused", _("Paused")
        CANCELLED = "cancelled", _("Cancelled")

    customer = models.ForeignKey(Customer, models.CASCADE, related_name="subscriptions")
    plan = models.CharField(_("plan"), max_length=50)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    price = models.DecimalField(_("price"), max_digits=10, decimal_places=2)
    started_at = models.DateField(_("started"))
    renews_at = models.DateField(_("renews"), null=True, blank=True)

    class Meta:
        verbose_name = _("subscription")
        verbose_name_plural = _("subscriptions")
