from django.urls import path
from rest_framework.routers import SimpleRouter

from tests.thirdparty import views

app_name = "thirdparty"

router = SimpleRouter()
router.register("books", views.BookViewSet, basename="book")
router.register("shelves", views.ShelfViewSet, basename="shelf")

urlpatterns = [
    path("stats/", views.stats, name="stats"),
    *router.urls,
]
