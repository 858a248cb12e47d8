from rest_framework.routers import SimpleRouter

from tests.realanswers.views import ItemViewSet

router = SimpleRouter()
router.register("items", ItemViewSet)

urlpatterns = router.urls
