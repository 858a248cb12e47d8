"""Models behind the field cases (../shared/cases/README.md), one small model per fault."""

from django.db import models
from polymorphic.models import PolymorphicModel
from simple_history.models import HistoricalRecords


class Member(models.Model):
    """Cases 1 and 8: nullable fields, a nullable blank choice."""

    nickname = models.CharField(max_length=50, null=True, blank=True)
    status = models.CharField(
        max_length=10, choices=[("draft", "Draft"), ("live", "Live")], null=True, blank=True
    )


class Note(models.Model):
    """Case 2: a paginated list with a null text."""

    text = models.TextField(null=True)


class Account(models.Model):
    """Case 3: a write-only password."""

    email = models.EmailField()
    password = models.CharField(max_length=128)


class Author(models.Model):
    name = models.CharField(max_length=100)


class Post(models.Model):
    """Cases 4 and 11: a nested author, a choice, a bounded title."""

    title = models.CharField(max_length=200)
    status = models.CharField(
        max_length=10, choices=[("draft", "Draft"), ("published", "Published")]
    )
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="posts")


class Page(models.Model):
    """Case 7: looked up by slug, and the slug is editable."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=100)


class Report(models.Model):
    """Cases 9, 10 and 12."""

    name = models.CharField(max_length=100)


class Node(models.Model):
    """Case 14: deeply nested routes."""

    cluster = models.IntegerField()
    region = models.IntegerField()
    restarts = models.IntegerField(default=0)


class Project(PolymorphicModel):
    """Polymorphic serializers (django-polymorphic's DRF serializer and django-rest-polymorphic)."""

    topic = models.CharField(max_length=100)


class ArtProject(Project):
    artist = models.CharField(max_length=100, blank=True)


class ResearchProject(Project):
    supervisor = models.CharField(max_length=100, blank=True)


class Document(models.Model):
    """A path parameter and a query parameter that are both called ``id``."""

    title = models.CharField(max_length=100)


class DocumentNote(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="notes")
    text = models.CharField(max_length=100)


class Label(models.Model):
    """Created one at a time or in bulk (a body that is an object or a list)."""

    name = models.CharField(max_length=50)
    color = models.CharField(max_length=20, blank=True)


class Ledger(models.Model):
    """Issue 12, "the identity that middleware sees": a row whose changes are logged by
    django-simple-history and by the change log of :mod:`tests.testapp.middleware`."""

    name = models.CharField(max_length=100)
    amount = models.DecimalField(max_digits=10, decimal_places=2, default=0)
    history = HistoricalRecords()


class WorkProject(models.Model):
    """The resources' test app (docs/resources.md): a project looked up by its slug (not its
    primary key), whose members may read it."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    members = models.ManyToManyField("auth.User", related_name="work_projects", blank=True)


class WorkTask(models.Model):
    """A task nested under its project (``/projects/{project}/tasks/{number}/``), numbered per
    project, with an attachment (a file field)."""

    project = models.ForeignKey(WorkProject, on_delete=models.CASCADE, related_name="tasks")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=100)
    attachment = models.FileField(upload_to="work/", blank=True)

    class Meta:
        unique_together = [("project", "number")]
        ordering = ["number"]
