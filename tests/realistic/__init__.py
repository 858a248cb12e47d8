"""A realistic API of about 200 operations (issue 20: search quality and default texts).

Six apps of the kind real DRF projects have: ``billing`` (invoices, payments, credit notes,
tax rates, subscriptions), ``commerce`` (products, categories, carts, orders, reviews,
coupons), ``inventory`` (warehouses, suppliers, stock items, purchase orders), ``crm``
(companies, customers, contacts, leads, activities), ``ipam`` (VRFs, ASNs, VLAN groups,
VLANs, prefixes, IP addresses) and ``virtualization`` (clusters, virtual machines, VM
interfaces). Like most real projects, the viewsets are ``ModelViewSet``s **without
docstrings** and without ``@extend_schema`` texts; they filter with django-filter, search
and order with DRF's filters, paginate, have a few ``@action``s, and the network apps have
NetBox-style bulk operations (``PUT``/``PATCH``/``DELETE`` on the list URL). Verbose names are
translated into German (``locale/de``).

It is mounted by :mod:`tests.realistic.urls` and published as the MCP group ``realistic``
by :data:`tests.realistic.settings.MCP_BRIDGE` (a ``GROUPS`` rule: the views carry no
decorator). Tests use it with ``override_settings(ROOT_URLCONF=URLCONF, MCP_BRIDGE=MCP_BRIDGE)``;
``bench/`` with ``DJANGO_SETTINGS_MODULE=tests.realistic.settings``. Its choice sets are named in
the test settings' ``SPECTACULAR_SETTINGS`` (:data:`ENUM_NAME_OVERRIDES`): drf-spectacular
caches ``ENUM_NAME_OVERRIDES`` for the process, so a per-group ``MCP_BRIDGE["SPECTACULAR_SETTINGS"]``
value would leak into the other groups' generation. The plain-language tasks
of ``bench/search_tasks.json`` name its tools.
"""

#: The URLconf that mounts the realistic API and its MCP endpoint.
URLCONF = "tests.realistic.urls"
#: The group the realistic API is published as.
GROUP = "realistic"
#: ``MCP_BRIDGE`` of a project that publishes the whole API as one group.
MCP_BRIDGE = {
    "SERVER_NAME": "realistic",
    "GROUPS": {GROUP: {"include": [{"namespace": "realistic"}]}},
}

#: Named choice sets, as a project with several "status" fields names them.
ENUM_NAME_OVERRIDES = {
    "InvoiceStatusEnum": "tests.realistic.billing.models.Invoice.Status",
    "SubscriptionStatusEnum": "tests.realistic.billing.models.Subscription.Status",
    "SalesOrderStatusEnum": "tests.realistic.commerce.models.Order.Status",
    "PurchaseOrderStatusEnum": "tests.realistic.inventory.models.PurchaseOrder.Status",
    "LeadStatusEnum": "tests.realistic.crm.models.Lead.Status",
    "NetworkStatusEnum": "tests.realistic.ipam.models.Status",
    "IPAddressStatusEnum": "tests.realistic.ipam.models.IPAddress.Status",
    "VirtualMachineStatusEnum": "tests.realistic.virtualization.models.VirtualMachine.Status",
}
