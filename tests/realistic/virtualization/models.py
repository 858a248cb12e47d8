from django.db import models
from django.utils.translation import gettext_lazy as _

from tests.realistic.ipam.models import IPAddress


class Cluster(models.Model):
    """A group of hypervisor hosts that virtual machines run on."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    type = models.CharField(_("type"), max_length=50, help_text=_("VMware, KVM, Hyper-V..."))
    site = models.CharField(_("site"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("cluster")
        verbose_name_plural = _("clusters")


class VirtualMachine(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("Running")
        STOPPED = "stopped", _("Stopped")
        DECOMMISSIONING = "decommissioning", _("Decommissioning")

    name = models.CharField(_("name"), max_length=64)
    cluster = models.ForeignKey(Cluster, models.PROTECT, related_name="virtual_machines")
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.STOPPED
    )
    vcpus = models.PositiveSmallIntegerField(_("vCPUs"), default=1)
    memory_mb = models.PositiveIntegerField(_("memory (MB)"), default=1024)
    disk_gb = models.PositiveIntegerField(_("disk (GB)"), default=20)
    primary_ip = models.ForeignKey(
        IPAddress, models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("virtual machine")
        verbose_name_plural = _("virtual machines")


class VMInterface(models.Model):
    virtual_machine = models.ForeignKey(VirtualMachine, models.CASCADE, related_name="interfaces")
    name = models.CharField(_("name"), max_length=64)
    mac_address = models.CharField(_("MAC address"), max_length=17, blank=True)
    enabled = models.BooleanField(_("enabled"), default=True)
    mtu = models.PositiveIntegerField(_("MTU"), null=True, blank=True)

    class Meta:
        verbose_name = _("VM interface")
        verbose_name_plural = _("VM interfaces")
