from django.db import models
from django.utils.translation import gettext_lazy as _


class Status(models.TextChoices):
    ACTIVE = "active", _("Active")
    RESERVED = "reserved", _("Reserved")
    DEPRECATED = "deprecated", _("Deprecated")


class VRF(models.Model):
    """A virtual routing and forwarding table: an address space of its own."""

    name = models.CharField(_("name"), max_length=100)
    rd = models.CharField(
        _("route distinguisher"), max_length=21, unique=True, null=True, blank=True
    )
    description = models.CharField(_("description"), max_length=200, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("VRF")
        verbose_name_plural = _("VRFs")


class ASN(models.Model):
    """An autonomous system number, assigned by a regional internet registry."""

    asn = models.PositiveBigIntegerField(_("ASN"), unique=True)
    rir = models.CharField(_("RIR"), max_length=20)
    description = models.CharField(_("description"), max_length=200, blank=True)

    class Meta:
        ordering = ["asn"]
        verbose_name = _("ASN")
        verbose_name_plural = _("ASNs")


class VLANGroup(models.Model):
    name = models.CharField(_("name"), max_length=100)
    slug = models.SlugField(_("slug"), unique=True)
    min_vid = models.PositiveSmallIntegerField(_("minimum VLAN ID"), default=1)
    max_vid = models.PositiveSmallIntegerField(_("maximum VLAN ID"), default=4094)

    class Meta:
        verbose_name = _("VLAN group")
        verbose_name_plural = _("VLAN groups")


class VLAN(models.Model):
    vid = models.PositiveSmallIntegerField(_("VLAN ID"))
    name = models.CharField(_("name"), max_length=64)
    group = models.ForeignKey(
        VLANGroup, models.PROTECT, null=True, blank=True, related_name="vlans"
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    description = models.CharField(_("description"), max_length=200, blank=True)

    class Meta:
        ordering = ["vid"]
        verbose_name = _("VLAN")
        verbose_name_plural = _("VLANs")


class Prefix(models.Model):
    prefix = models.CharField(
        _("prefix"), max_length=43, help_text=_("IPv4 or IPv6 network with mask.")
    )
    vrf = models.ForeignKey(VRF, models.PROTECT, null=True, blank=True, related_name="prefixes")
    vlan = models.ForeignKey(VLAN, models.SET_NULL, null=True, blank=True, related_name="prefixes")
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    is_pool = models.BooleanField(_("is a pool"), default=False)
    description = models.CharField(_("description"), max_length=200, blank=True)

    class Meta:
        ordering = ["prefix"]
        verbose_name = _("prefix")
        verbose_name_plural = _("prefixes")


class IPAddress(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        RESERVED = "reserved", _("Reserved")
        DEPRECATED = "deprecated", _("Deprecated")
        DHCP = "dhcp", _("DHCP")

    address = models.CharField(
        _("address"), max_length=50, help_text=_("IPv4 or IPv6 address with mask.")
    )
    vrf = models.ForeignKey(VRF, models.PROTECT, null=True, blank=True, related_name="ip_addresses")
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    dns_name = models.CharField(_("DNS name"), max_length=255, blank=True)
    description = models.CharField(_("description"), max_length=200, blank=True)

    class Meta:
        ordering = ["address"]
        verbose_name = _("IP address")
        verbose_name_plural = _("IP addresses")
