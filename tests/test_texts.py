"""Texts that say what a tool does (issue 20): default titles and descriptions written from the
facts for operations without texts, in English and German, explicit texts winning, and
drf-spectacular's boilerplate trimmed from the listing."""

from __future__ import annotations

import dataclasses

import pytest
from django.test import Client, override_settings
from django.urls import include, path
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from demo_project.shop.models import Order, OrderItem, Tag
from mcp_bridge import api_group, mcp_tool
from mcp_bridge.build.facts import OperationFacts
from mcp_bridge.build.texts import title_from_facts, trimmed_components
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient
from tests.realistic import GROUP, MCP_BRIDGE, URLCONF
from tests.test_translation import write_catalogue

LANGUAGES = [("en", "English"), ("de", "German")]


@pytest.fixture
def realistic(settings):
    settings.LANGUAGES = LANGUAGES
    # The whole listing is under test: direct, not the search mode "auto" picks for 225 tools.
    with override_settings(ROOT_URLCONF=URLCONF, MCP_BRIDGE={**MCP_BRIDGE, "DISCOVERY": "direct"}):
        yield


def tools_in(language: str | None = None) -> dict:
    return {tool.name: tool for tool in get_toolset(GROUP, language=language).tools}


def test_a_list_says_its_pagination_filters_search_and_ordering(realistic):
    invoices = tools_in()["invoice_list"]
    assert invoices.title == "List invoices"
    assert invoices.description == (
        "List invoices (paginated; filter by status, customer, currency, issue_date, due_date; "
        "`search` over number, customer name, notes; `ordering` by issue_date, due_date, total)."
    )
    assert invoices.generated == {"title", "description"}


def test_each_action_has_its_own_default_texts(realistic):
    tools = tools_in()
    texts = {
        name: (tools[name].title, tools[name].description)
        for name in (
            "ipam_ip_addresses_retrieve",
            "ipam_ip_addresses_create",
            "ipam_ip_addresses_update",
            "ipam_ip_addresses_partial_update",
            "ipam_ip_addresses_destroy",
            "ipam_vlans_bulk_destroy",
            "crm_contacts_bulk_partial_update",
            "order_cancel",
            "invoice_overdue",
        )
    }
    assert texts == {
        "ipam_ip_addresses_retrieve": ("Get IP address", "Get the IP address with the given `id`."),
        "ipam_ip_addresses_create": ("Create IP address", "Create a new IP address."),
        "ipam_ip_addresses_update": (
            "Replace IP address",
            (
                "Replace the IP address with the given `id`: every field is written, and fields "
                "left out are reset."
            ),
        ),
        "ipam_ip_addresses_partial_update": (
            "Update IP address",
            "Change fields of the IP address with the given `id`; fields left out keep their values.",
        ),
        "ipam_ip_addresses_destroy": (
            "Delete IP address",
            "Delete the IP address with the given `id`.",
        ),
        "ipam_vlans_bulk_destroy": (
            "Delete several VLANs",
            "Delete several VLANs at once: `body` is a list of them, each with its `id`.",
        ),
        "crm_contacts_bulk_partial_update": (
            "Update several contacts",
            "Change fields of several contacts at once: `body` is a list of them, each with its `id`.",
        ),
        "order_cancel": (
            "Cancel order",
            "Action `cancel` (POST) on the order with the given `id`.",
        ),
        "invoice_overdue": ("Invoices: overdue", "Action `overdue` (GET) on invoices."),
    }


def test_default_texts_are_written_in_german_with_the_german_verbose_names(realistic):
    tools = tools_in("de")
    assert (tools["ipam_ip_addresses_list"].title, tools["ipam_vlans_bulk_destroy"].title) == (
        "IP-Adressen auflisten",
        "Mehrere VLANs löschen",
    )
    assert tools["virtualization_virtual_machines_retrieve"].description == (
        "Virtuelle Maschine abrufen, ausgewählt über `id`."
    )
    assert tools["invoice_list"].description.startswith(
        "Rechnungen auflisten (seitenweise; Filter: status, customer"
    )
    arguments = tools["invoice_list"].input_schema["properties"]
    assert arguments["page"]["description"] == "Seitennummer."
    assert arguments["search"]["description"] == "Durchsucht number, customer name, notes."
    # The English copy is untouched.
    assert tools_in("en")["ipam_ip_addresses_list"].title == "List IP addresses"


@pytest.mark.django_db
def test_a_german_client_lists_the_german_default_texts(realistic):
    client = McpClient(Client(), "/mcp/realistic/", **{"Accept-Language": "de"})
    listed = {tool["name"]: tool for tool in client.list_tools()}
    assert listed["crm_contacts_bulk_destroy"]["title"] == "Mehrere Kontakte löschen"
    assert listed["lead_convert"]["description"] == (
        "Aktion `convert` (POST) für Interessent, ausgewählt über `id`."
    )


def test_an_argument_named_title_or_description_keeps_its_own_text(realistic):
    """The tool's texts and its arguments' texts are two things: a German client's VLAN create
    gets the tool's German description, and its ``description`` argument keeps its own (none)."""
    for language in ("en", "de"):
        tool = tools_in(language)["ipam_vlans_create"]
        assert tool.description in ("Create a new VLAN.", "VLAN neu anlegen.")
        assert "description" not in tool.input_schema["properties"]["description"], language


def test_a_catalogue_entry_wins_over_a_default_text(realistic, tmp_path, settings):
    settings.LOCALE_PATHS = [tmp_path]
    write_catalogue(tmp_path, "de", None, {("title", "invoice_list"): "Alle Rechnungen"})
    tools = tools_in("de")
    assert tools["invoice_list"].title == "Alle Rechnungen"
    assert tools["invoice_list"].description.startswith("Rechnungen auflisten")


# Explicit texts: a docstring, extend_schema's summary and description, @mcp_tool's title.
class TagSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tag
        fields = ["id", "name", "slug"]


@api_group("texts")
class TagViewSet(viewsets.ModelViewSet):
    queryset = Tag.objects.all()
    serializer_class = TagSerializer

    def retrieve(self, request, *args, **kwargs):
        """One tag, with its slug."""
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(summary="Make a tag")
    def create(self, request, *args, **kwargs):
        return super().create(request, *args, **kwargs)

    @mcp_tool(title="Remove a tag")
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    @extend_schema(description="Change a tag's name or slug.")
    def partial_update(self, request, *args, **kwargs):
        return super().partial_update(request, *args, **kwargs)


class OrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = Order
        fields = ["id", "status", "note"]


@api_group("texts")
class PurchaseOrderViewSet(viewsets.ModelViewSet):
    """Purchase orders of the shop, from placing to delivery."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer

    @action(detail=True, methods=["post"])
    def hold(self, request, pk=None):
        return Response({"status": "held"})

    @action(detail=True, methods=["post"])
    def receive_items(self, request, pk=None):
        return Response({})

    @action(detail=False, methods=["get"])
    def overdue(self, request):
        """Orders past their delivery date."""
        return Response([])


class IssueSerializer(serializers.Serializer):
    """A state change: no model's serializer."""

    note = serializers.CharField(required=False)

    def save(self, **kwargs):
        return None


@api_group("texts")
class OrderIssue(generics.CreateAPIView):
    """As real applications write state changes: a generic create view at the object's URL."""

    queryset = Order.objects.all()
    serializer_class = IssueSerializer


class ReceiveSerializer(serializers.Serializer):
    items = serializers.ListField(child=serializers.IntegerField())


@api_group("texts")
class OrderReceive(generics.CreateAPIView):
    queryset = OrderItem.objects.all()
    serializer_class = ReceiveSerializer


@api_group("texts")
class OrderItemCreate(generics.CreateAPIView):
    """Add an item to an order."""

    queryset = OrderItem.objects.all()
    serializer_class = type(
        "OrderItemSerializer",
        (serializers.ModelSerializer,),
        {"Meta": type("Meta", (), {"model": OrderItem, "fields": ["id", "quantity"]})},
    )


router = SimpleRouter()
router.register("tags", TagViewSet, basename="tags")
router.register("orders", PurchaseOrderViewSet, basename="orders")
urlpatterns = [
    path("api/", include(router.urls)),
    path("api/orders/<int:pk>/issue/", OrderIssue.as_view()),
    path("api/orders/<int:pk>/receive/", OrderReceive.as_view()),
    path("api/orders/<int:pk>/items/", OrderItemCreate.as_view()),
]


def test_explicit_texts_always_win():
    with override_settings(ROOT_URLCONF=__name__):
        tools = {tool.name: tool for tool in get_toolset("texts").tools}
    texts = {name: (tool.title, tool.description, tool.generated) for name, tool in tools.items()}
    assert texts["tags_retrieve"] == ("Get tag", "One tag, with its slug.", {"title"})
    assert texts["tags_create"] == ("Make a tag", "Make a tag", frozenset())
    assert texts["tags_destroy"] == (
        "Remove a tag",
        "Delete the tag with the given `id`.",
        {"description"},
    )
    assert texts["tags_partial_update"] == (
        "Update tag",
        "Change a tag's name or slug.",
        {"title"},
    )
    assert texts["tags_list"] == ("List tags", "List tags (paginated).", {"title", "description"})


def test_a_viewset_docstring_is_context_for_each_action_not_its_text():
    with override_settings(ROOT_URLCONF=__name__):
        tools = {tool.name: tool for tool in get_toolset("texts").tools}
    context = "Purchase orders of the shop, from placing to delivery."
    assert tools["orders_destroy"].description == (
        f"Delete the order with the given `id`.\n\n{context}"
    )
    assert tools["orders_list"].description.startswith("List orders (paginated).")
    assert tools["orders_list"].description.endswith(context)
    # An action with a docstring of its own keeps it.
    assert tools["orders_overdue"].description == "Orders past their delivery date."
    # A one-operation view's docstring is its description.
    assert tools["order_item_create"].description == "Add an item to an order."


def test_a_state_change_is_titled_by_its_action_never_create():
    with override_settings(ROOT_URLCONF=__name__):
        tools = {tool.name: tool for tool in get_toolset("texts").tools}
    titles = {name: tools[name].title for name in tools if name.startswith(("order", "tags_c"))}
    assert titles["orders_hold"] == "Hold order"
    assert titles["orders_receive_items"] == "Receive items of order"
    assert titles["orders_overdue"] == "Orders: overdue"
    # Generic create views at an object's URL whose serializer is no model's: actions.
    issue = next(t for t in tools.values() if t.method.source.view_class is OrderIssue)
    receive = next(t for t in tools.values() if t.method.source.view_class is OrderReceive)
    assert (issue.title, receive.title) == ("Issue order", "Receive order item")
    assert issue.facts.action == "custom" and issue.facts.action_name == "issue"
    # A generic view that does create keeps its title.
    assert titles["order_item_create"] == "Create order item"
    assert not [
        name
        for name, title in titles.items()
        if title.startswith("Create") and name in ("orders_hold", "orders_receive_items")
    ]


def test_the_demo_keeps_its_own_texts():
    with override_settings(ROOT_URLCONF="tests.urls"):
        for group in ("catalog", "orders", "backoffice"):
            for tool in get_toolset(group).tools:
                assert "description" not in tool.generated, tool.name


def test_boilerplate_is_trimmed_from_the_listing_and_kept_in_openrpc(realistic):
    toolset = get_toolset(GROUP)
    tools = toolset.by_name
    retrieve = tools["ipam_vlans_retrieve"].input_schema["properties"]["id"]
    assert retrieve == {"type": "integer"}  # "A unique integer value identifying this VLAN." went
    arguments = tools["invoice_list"].input_schema["properties"]
    assert arguments["page"]["description"] == "Page number."
    assert arguments["page_size"]["description"] == "Results per page."
    assert arguments["ordering"]["description"] == (
        "One of issue_date, due_date, total; `-` in front for descending."
    )
    assert "description" not in arguments["status"]  # "* `draft` - Draft\n* `sent` - Sent ..."
    offset = tools["ipam_vlans_list"].input_schema["properties"]["offset"]
    assert offset["description"] == "Index of the first result."
    status_enum = tools["invoice_retrieve"].output_schema["$defs"]["InvoiceStatusEnum"]
    # The tolerant output form (OUTPUT_SCHEMA) also takes a list of the choices.
    choices = status_enum["anyOf"][0] if "anyOf" in status_enum else status_enum
    assert "description" not in status_enum and choices["enum"][0] == "draft"
    # The OpenRPC document keeps drf-spectacular's texts.
    method = next(m for m in toolset.openrpc["methods"] if m["name"] == "ipam_vlans_retrieve")
    (lookup,) = [p for p in method["params"] if p["name"] == "id"]
    assert lookup["description"] == "A unique integer value identifying this VLAN."
    enum = toolset.openrpc["components"]["schemas"]["InvoiceStatusEnum"]
    assert enum["description"].startswith("* `draft` - Draft")


def test_choice_lines_with_labels_of_their_own_stay():
    components = {
        "Priority": {
            "enum": [1, 2],
            "type": "integer",
            "description": "* `1` - Low\n* `2` - High",
        },
        "Kind": {"enum": ["a_b"], "type": "string", "description": "* `a_b` - A b"},
        "Thing": {
            "type": "object",
            "properties": {
                "kind": {
                    "allOf": [{"$ref": "#/components/schemas/Kind"}],
                    "description": "Its kind.\n\n* `a_b` - A b",
                },
                "enum": {"type": "string", "description": "* `x` - X"},
            },
        },
    }
    trimmed = trimmed_components(components)
    assert trimmed["Priority"] is components["Priority"]
    assert trimmed["Kind"] == {"enum": ["a_b"], "type": "string"}
    assert trimmed["Thing"]["properties"]["kind"]["description"] == "Its kind."
    # A property named like a keyword is a schema still.
    assert "description" not in trimmed["Thing"]["properties"]["enum"]


@pytest.mark.parametrize(
    ("action", "method", "title"),
    [
        ("hold", "POST", "Hold order"),  # one word that writes: a verb
        ("accept_fields", "POST", "Accept fields of order"),  # the verb first
        ("bom_copy", "POST", "Copy bom of order"),  # the verb last: turned round
        ("purchase_order", "POST", "Order: purchase order"),  # a noun at the end: kept
        ("shipping_label", "POST", "Order: shipping label"),  # no verb
        ("copy_lines", "GET", "Order: copy lines"),  # a read keeps its name
    ],
)
def test_a_custom_action_is_titled_with_its_verb_first(action, method, title):
    with override_settings(ROOT_URLCONF=__name__):
        facts = get_toolset("texts").by_name["orders_hold"].facts
    changed = dataclasses.replace(facts, action_name=action, http_method=method)
    assert title_from_facts(changed) == title


@pytest.mark.parametrize(
    ("name", "action", "title"),
    [
        ("machine_restart_create", "restart", "Restart machine"),
        (
            "importer_session_accept_fields_create",
            "accept_fields",
            "Accept fields of importer session",
        ),
        ("ml_backends_train_update", "train", "Train ml backends"),
        ("reports_export_create", "data_export", None),  # the name does not end with the action
        ("exports_shipping_label_create", "shipping_label", None),  # no verb: the name's words
    ],
)
def test_an_action_of_a_view_without_a_model_is_titled_from_its_name(name, action, title):
    facts = OperationFacts(
        action="custom", http_method="POST", handler_name="post", action_name=action
    )
    assert title_from_facts(facts, name) == title
