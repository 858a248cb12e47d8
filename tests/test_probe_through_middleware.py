"""Issue 19, class 2, "``mcp_tools --probe-output`` calls the views without the middleware":
each probed call is a real request through the handler and the middleware stack, the tools it
skips are counted with the reason, and ``--user`` is checked before anything is built.

The invoicing app (tests/audit) has a read-only action, ``invoice_mine``, that finds its user
through django-crum's current request, as the app's models do, and one, ``invoice_latest``,
that requires a ``limit``.
"""

from __future__ import annotations

from unittest import mock

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from tests.audit.models import Invoice

pytestmark = pytest.mark.django_db


def _lines(out: str) -> dict[str, list[str]]:
    """The probe's lines by tool name: [outcome, code...]."""
    return {
        line.split()[0]: line.split()[1:]
        for line in out.splitlines()
        if line.strip() and not line.startswith((" ", "#"))
    }


def test_a_view_reading_the_current_user_through_crum_sees_the_probe_user(make_user, capsys):
    alice, _ = make_user("alice")
    invoice = Invoice.objects.create(number="A-1", created_by=alice)
    call_command("mcp_tools", "audit", "--probe-output", "--user", "alice", "--follow-lists")
    out = capsys.readouterr().out
    lines = _lines(out)
    # Through the middleware, crum's CurrentRequestUserMiddleware holds the MCP request, to
    # which DRF's forced authentication writes the user: the view sees alice.
    assert lines["invoice_mine"] == ["ok"]
    assert lines["invoice_list"] == ["ok"]
    assert lines["invoice_retrieve"] == ["ok", '{"id":', f"{invoice.pk}}}"]  # from the list
    assert "at /mcp/audit/ as alice, through the middleware" in out


def test_anonymously_the_same_view_answers_as_it_would_a_real_anonymous_call(capsys):
    call_command("mcp_tools", "audit", "--probe-output")
    lines = _lines(capsys.readouterr().out)
    assert lines["invoice_mine"][:2] == ["ERROR", "401"]


def test_the_skipped_tools_are_counted_with_the_reason(make_user, capsys):
    make_user("alice")
    call_command("mcp_tools", "audit", "--probe-output", "--user", "alice")
    out = capsys.readouterr().out
    assert "# skipped 6 of 8 tools:" in out
    assert (
        "#   4, they write (never called): invoice_create, invoice_destroy, "
        "invoice_partial_update, invoice_update" in out
    )
    assert "#   2, they require arguments: invoice_latest (limit), invoice_retrieve (id)" in out


def test_a_misspelt_user_stops_the_probe_before_anything_is_built(make_user):
    make_user("alice")
    with (
        mock.patch(
            "mcp_bridge.management.commands.mcp_tools.get_groups",
            side_effect=AssertionError("built before the user was checked"),
        ),
        pytest.raises(CommandError) as raised,
    ):
        call_command("mcp_tools", "audit", "--probe-output", "--user", "alcie")
    message = str(raised.value)
    assert message.startswith("No user 'alcie': --user takes the username of an existing auth.User")
    assert "createsuperuser" in message


def test_user_without_probe_output_is_refused():
    with pytest.raises(CommandError, match="--user only applies to --probe-output"):
        call_command("mcp_tools", "audit", "--user", "alice")


@override_settings(
    MIDDLEWARE=[
        *settings.MIDDLEWARE,
        "tests.testapp.middleware.LoginRequiredExceptPathsMiddleware",
    ],
    LOGIN_EXEMPT_PATHS=["/audit/"],
)
def test_a_middleware_redirect_is_what_the_probe_reports(make_user, capsys):
    make_user("alice")
    with pytest.raises(CommandError):
        call_command("mcp_tools", "audit", "--probe-output", "--user", "alice")
    out = capsys.readouterr().out
    assert _lines(out)["invoice_list"][:2] == ["ERROR", "302"]
    assert "HTTP 302 (/accounts/login/?next=/mcp/audit/) from the middleware stack" in out
