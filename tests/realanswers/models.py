"""Rows whose REST answers depart from drf-spectacular's description of them."""

from django.db import models

COLOURS = [("red", "Red"), ("green", "Green"), ("blue", "Blue")]


class MultipleChoiceModelField(models.CharField):
    """Several choices in one comma-separated column, read back as a list: what
    django-multiselectfield's ``MultiSelectField`` does. DRF's ``ModelSerializer`` maps it
    to a ``ChoiceField`` (it has ``choices``), so drf-spectacular declares one choice (an
    ``enum`` string), and the answer is a list."""

    def from_db_value(self, value, expression, connection):
        return value.split(",") if value else []

    def to_python(self, value):
        if isinstance(value, list):
            return value
        return value.split(",") if value else []

    def get_prep_value(self, value):
        return ",".join(value) if isinstance(value, (list, tuple)) else value

    def validate(self, value, model_instance):  # each choice, not the list, is one of them
        for choice in value or ():
            super().validate(choice, model_instance)


class Owner(models.Model):
    name = models.CharField(max_length=100)


class Shelf(models.Model):
    label = models.CharField(max_length=100)


class Item(models.Model):
    name = models.CharField(max_length=100)
    owner = models.ForeignKey(Owner, null=True, blank=True, on_delete=models.SET_NULL)
    shelf = models.ForeignKey(Shelf, null=True, blank=True, on_delete=models.SET_NULL)
    price = models.DecimalField(max_digits=8, decimal_places=2, default=0)
    colours = MultipleChoiceModelField(max_length=100, choices=COLOURS, blank=True, default="")
