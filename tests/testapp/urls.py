from django.urls import path
from rest_framework.routers import SimpleRouter

from tests.testapp import mrtr_views, pattern_views, results_views, views

router = SimpleRouter()
router.register("members", views.MemberViewSet, basename="members")
router.register("projects", pattern_views.ProjectViewSet, basename="work_projects")
router.register("rest-projects", pattern_views.RestProjectViewSet, basename="rest_projects")
router.register("posts", views.PostViewSet, basename="posts")
router.register("reports", views.ReportViewSet, basename="reports")
router.register(
    r"clusters/(?P<cluster_pk>[^/.]+)/regions/(?P<region_pk>[^/.]+)/nodes",
    views.NodeViewSet,
    basename="node",
)

urlpatterns = [
    path("notes/", views.NoteList.as_view()),
    path("accounts/", views.AccountCreate.as_view()),
    path("categories/tree/", views.CategoryTree.as_view()),
    path("tags/bulk/", views.bulk_tags),
    path("shapes/", views.add_shape),
    path("pages/<slug:slug>/", views.PageDetail.as_view()),
    path("admin-reports/", views.AdminReportList.as_view()),
    path("bad/", views.bad_name),
    path("bad-dup/", views.duplicate_of_bad_name),
    path("dupes/1/", views.first_dupe),
    path("dupes/2/", views.second_dupe),
    path("contacts/", pattern_views.contact_add),
    path("subscriptions/", pattern_views.subscribe),
    path("profiles/", pattern_views.profile_save),
    path("keywords/", pattern_views.keywords_echo),
    path("documents/<int:id>/notes/", pattern_views.DocumentNotes.as_view()),
    path("labels/", pattern_views.LabelBulkCreate.as_view()),
    path("handwritten/", pattern_views.handwritten_echo),
    *router.urls,
]

# Issue 12's identity and result cases (tests/test_identity.py, tests/test_results.py).
ledger_router = SimpleRouter()
ledger_router.register("ledger", results_views.LedgerViewSet, basename="ledger")
ledger_router.register("results/badges", results_views.BadgeViewSet, basename="badges")
urlpatterns += [
    path("results/statuses/", results_views.statuses),
    path("results/entries/", results_views.add_entry),
    path("results/wrong-rows/", results_views.wrong_rows),
    path("results/brief-rows/", results_views.brief_rows),
    path("results/loose-rows/", results_views.loose_rows),
    path("results/logo/", results_views.logo),
    path("results/invoice/", results_views.invoice),
    path("results/export/", results_views.export),
    path("results/motd/", results_views.motd),
    path("results/banner/", results_views.banner),
    path("results/whoami/", results_views.whoami),
    *ledger_router.urls,
]

# Issue 36: the conformance suite's input-required fixture tools (tests/testapp/mrtr_views.py).
urlpatterns += [
    path("mrtr/elicitation/", mrtr_views.elicitation_tool),
    path("mrtr/sampling/", mrtr_views.sampling_tool),
    path("mrtr/list-roots/", mrtr_views.list_roots_tool),
    path("mrtr/request-state/", mrtr_views.request_state_tool),
    path("mrtr/tampered-state/", mrtr_views.tampered_state_tool),
    path("mrtr/multiple-inputs/", mrtr_views.multiple_inputs_tool),
    path("mrtr/multi-round/", mrtr_views.multi_round_tool),
    path("mrtr/capabilities/", mrtr_views.capabilities_tool),
    path("mrtr/archive/", mrtr_views.archive_tool),
]

# Issue 35's tools that become MCP tasks (tests/test_tasks.py, the conformance tasks-* scenarios).
from tests.testapp import task_views

urlpatterns += [
    path("tasks/greet/", task_views.greet),
    path("tasks/compute/", task_views.slow_compute),
    path("tasks/failing/", task_views.failing_job),
    path("tasks/crash/", task_views.protocol_error_job),
    path("tasks/crashes/<str:job_id>/", task_views.crash_status),
    path("tasks/exports/", task_views.export_start),
    path("tasks/exports/<str:job_id>/", task_views.export_status),
    path("tasks/exports/<str:job_id>/result/", task_views.export_result),
    path("tasks/audit/", task_views.audit_report),
    path("tasks/files/delete/", task_views.confirm_delete),
    path("tasks/introductions/", task_views.multi_input),
    path("tasks/greetings/slow/", task_views.greet_slowly),
]

# The resources' test app and the conformance suite's resource fixtures
# (tests/testapp/resource_views.py, tests/test_resources.py).
from tests.testapp import resource_views

work_router = SimpleRouter()
work_router.register("work/projects", resource_views.WorkProjectViewSet, basename="work_projects")
work_router.register(
    r"work/projects/(?P<project>[^/.]+)/tasks",
    resource_views.WorkTaskViewSet,
    basename="work_tasks",
)
urlpatterns += [
    path("conformance/static-text/", resource_views.static_text),
    path("conformance/static-binary/", resource_views.static_binary),
    path("conformance/template/<str:id>/data/", resource_views.template_data),
    *work_router.urls,
]
