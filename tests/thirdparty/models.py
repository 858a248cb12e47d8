from django.db import models
from django.utils.translation import gettext_lazy as _


class Shelf(models.Model):
    name = models.CharField(max_length=100)
    room = models.CharField(max_length=50, blank=True)


class Book(models.Model):
    class Status(models.TextChoices):
        AVAILABLE = "available", _("Available")
        LENT = "lent", _("Lent")

    title = models.CharField(max_length=200)
    author = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.AVAILABLE)
    price = models.DecimalField(max_digits=8, decimal_places=2)
    published = models.DateField(null=True, blank=True)
    pages = models.PositiveIntegerField(default=0)
    shelf = models.ForeignKey(
        Shelf, on_delete=models.SET_NULL, null=True, blank=True, related_name="books"
    )
    lent_to = models.CharField(max_length=100, blank=True)
