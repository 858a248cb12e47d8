"""The benchmark's data: items in categories, a typical catalogue table."""

from django.db import models


class Category(models.Model):
    name = models.CharField(max_length=80)
    slug = models.SlugField(unique=True)


class Item(models.Model):
    name = models.CharField(max_length=120, help_text="Display name.")
    slug = models.SlugField(unique=True)
    description = models.TextField(blank=True)
    price = models.DecimalField(max_digits=10, decimal_places=2, help_text="Price in EUR.")
    stock = models.PositiveIntegerField(default=0)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField()
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="items")
