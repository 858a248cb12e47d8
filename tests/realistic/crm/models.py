from django.db import models
from django.utils.translation import gettext_lazy as _


class Company(models.Model):
    """An organisation that customers and contacts belong to."""

    name = models.CharField(_("name"), max_length=200, unique=True)
    website = models.URLField(_("website"), blank=True)
    industry = models.CharField(_("industry"), max_length=100, blank=True)
    employees = models.PositiveIntegerField(_("employees"), null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("company")
        verbose_name_plural = _("companies")


class Customer(models.Model):
    class Tier(models.TextChoices):
        STANDARD = "standard", _("Standard")
        GOLD = "gold", _("Gold")
        PLATINUM = "platinum", _("Platinum")

    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("email"), unique=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    company = models.ForeignKey(Company, models.SET_NULL, null=True, blank=True)
    tier = models.CharField(_("tier"), max_length=20, choices=Tier.choices, default=Tier.STANDARD)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("customer")
        verbose_name_plural = _("customers")


class Contact(models.Model):
    first_name = models.CharField(_("first name"), max_length=100)
    last_name = models.CharField(_("last name"), max_length=100)
    email = models.EmailField(_("email"), blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    job_title = models.CharField(_("job title"), max_length=100, blank=True)
    company = models.ForeignKey(Company, models.CASCADE, related_name="contacts")

    class Meta:
        ordering = ["last_name", "first_name"]
        verbose_name = _("contact")
        verbose_name_plural = _("contacts")


class Lead(models.Model):
    """A prospective customer who has shown interest but has not bought yet."""

    class Status(models.TextChoices):
        NEW = "new", _("New")
        QUALIFIED = "qualified", _("Qualified")
        CONVERTED = "converted", _("Converted")
        LOST = "lost", _("Lost")

    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("email"))
    company_name = models.CharField(_("company name"), max_length=200, blank=True)
    source = models.CharField(_("source"), max_length=50, blank=True)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.NEW
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("lead")
        verbose_name_plural = _("leads")


class Activity(models.Model):
    class Kind(models.TextChoices):
        CALL = "call", _("Call")
        EMAIL = "email", _("Email")
        MEETING = "meeting", _("Meeting")

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    subject = models.CharField(_("subject"), max_length=200)
    customer = models.ForeignKey(Customer, models.CASCADE, related_name="activities")
    due_at = models.DateTimeField(_("due"), null=True, blank=True)
    done = models.BooleanField(_("done"), default=False)

    class Meta:
        ordering = ["due_at"]
        verbose_name = _("activity")
        verbose_name_plural = _("activities")
