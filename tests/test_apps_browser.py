"""MCP Apps in a real host: headless Chromium runs the extension's own ``AppBridge`` and the
official MCP client (tests/apps_host/host.js, built from frontend/apps/host/), connected to
the bridge's endpoint over HTTP (a live server). The host reads each tool's page with
``resources/read``, renders it in a sandboxed iframe and forwards the page's tool calls.

Screenshots are kept under ``tests/.artifacts/`` (the path is printed), as the explorer's
tests keep theirs. Without Chromium the tests are skipped with the reason, and fail under
``MCP_BRIDGE_REQUIRE_PEERS=1`` (CI).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.urls import path

from demo_project.shop.models import Category, Product, Tag
from mcp_bridge.signals import post_tool_call
from tests.test_explorer import ARTIFACTS, browser  # noqa: F401 (the explorer's fixture)
from tests.testapp import upload_views
from tests.testapp.models import Account, Author, Member, Note, Post, Report
from tests.urls import urlpatterns as test_urlpatterns

HOST = Path(__file__).parent / "apps_host" / "host.js"
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"></script><b>&amp;</b> {{ 1 }}"


def host_page(request):
    script = HOST.read_text(encoding="utf-8").replace("</script", "<\\/script")
    return HttpResponse(
        "<!doctype html><html><head><meta charset='utf-8'><title>host</title>"
        "<style>body{margin:0;font:14px system-ui}iframe{width:100%;border:0;height:520px}"
        "</style></head><body><div id='host'></div><script>" + script + "</script></body></html>"
    )


urlpatterns = [*test_urlpatterns, *upload_views.urlpatterns, path("apps-host/", host_page)]
pytestmark = [pytest.mark.urls("tests.test_apps_browser"), pytest.mark.slow]


def _open(
    driver,
    live_server,
    tool: str,
    arguments: dict | None = None,
    theme="light",
    headers=None,
    group="cases",
) -> None:
    driver.get(f"{live_server.url}/apps-host/")
    uri = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.openApp({endpoint: arguments[4], tool: arguments[0], arguments: arguments[1],"
        " theme: arguments[2], headers: arguments[3]})"
        ".then(done, (e) => done('failed: ' + e.message));",
        tool,
        arguments or {},
        theme,
        headers or {},
        f"/mcp/{group}/",
    )
    assert uri.startswith("ui://mcp-bridge/"), (uri, driver.execute_script("return window.hostLog"))
    driver.switch_to.frame(driver.find_element("css selector", "#host iframe"))


def _wait(driver, condition, what: str):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    try:  # the page renders again as results arrive: an element read mid-way is read again
        wait = WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,))
        return wait.until(lambda _: condition())
    except Exception:
        _shot(driver, f"failed-{what}", None)
        raise


def _shot(driver, name: str, capsys) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    target = ARTIFACTS / f"apps-{name}.png"
    driver.switch_to.default_content()
    driver.save_screenshot(str(target))
    frames = driver.find_elements("css selector", "#host iframe")
    if frames:
        driver.switch_to.frame(frames[0])
    if capsys is not None:
        with capsys.disabled():
            print(f"\nscreenshot of an MCP App ({name}): {target}")


def _cells(driver) -> list[list[str]]:
    """The table's cells as text, read at once (the page renders again as results arrive)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('tbody tr')]"
        ".map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent));"
    )


@pytest.fixture
def driver(request):
    """The explorer tests' headless Chromium (skipped, or failed in CI, without it)."""
    return request.getfixturevalue("browser")


@pytest.fixture
def calls():
    """The tools/call requests the server ran: (tool, arguments)."""
    seen: list[tuple[str, dict]] = []

    def record(sender, tool, arguments, request, **kwargs):
        seen.append((tool.name, arguments))

    post_tool_call.connect(record)
    yield seen
    post_tool_call.disconnect(record)


@pytest.fixture
def apps_always(settings):
    # The official client speaks a handshake-era revision: it declares extensions in
    # initialize, which this stateless server does not keep (docs/apps.md).
    settings.MCP_BRIDGE = {"APPS": "always"}


@pytest.mark.django_db(transaction=True)
def test_a_list_renders_its_rows_and_pages_through_a_tool_call(
    driver, live_server, apps_always, calls, capsys
):

    notes = [Note.objects.create(text=f"note {n}") for n in range(1, 24)]
    notes[1].text = HOSTILE
    notes[1].save()
    _open(driver, live_server, "note_list")
    _wait(driver, lambda: len(_cells(driver)) == 10, "rows")
    head = [cell.text for cell in driver.find_elements("css selector", "thead th")]
    assert head == ["id", "text"]  # the outputSchema's columns
    cells = _cells(driver)
    assert cells[0] == [str(notes[0].id), "note 1"]
    # Hostile strings are text: shown as written, no element made of them.
    assert cells[1] == [str(notes[1].id), HOSTILE]
    assert driver.find_elements("css selector", "td img, td b") == []
    assert "23" in driver.find_element("css selector", ".bar .grow").text
    _shot(driver, "collection", capsys)

    driver.find_element("xpath", "//button[normalize-space()='Next']").click()
    _wait(driver, lambda: _cells(driver) and _cells(driver)[0][1] == "note 11", "next page")
    assert [row[1] for row in _cells(driver)] == [f"note {n}" for n in range(11, 21)]
    # The host's call, then the page's own, through the host.
    assert calls == [("note_list", {}), ("note_list", {"page": 2})]
    assert driver.title != "pwned"
    _shot(driver, "collection-page-2", capsys)


@pytest.mark.django_db(transaction=True)
def test_a_call_proxys_page_is_the_page_of_the_tool_it_ran(
    driver, live_server, settings, calls, capsys
):
    """Search mode lists the call proxies, not the tools: a proxy's page renders the tool it
    ran (its kind, schemas and arguments from the result's _meta) and calls it by name."""
    settings.MCP_BRIDGE = {"APPS": "always", "DISCOVERY": "search"}
    for n in range(1, 24):
        Note.objects.create(text=f"note {n}")
    _open(
        driver,
        live_server,
        "call_read_only_tool",
        {"name": "note_list", "arguments": {"page": 2}},
    )
    _wait(driver, lambda: len(_cells(driver)) == 10, "rows")
    assert driver.find_element("css selector", "h1").text == "List notes"
    assert [cell.text for cell in driver.find_elements("css selector", "thead th")] == [
        "id",
        "text",
    ]
    assert _cells(driver)[0][1] == "note 11"
    _shot(driver, "proxied-collection", capsys)
    driver.find_element("xpath", "//button[normalize-space()='Next']").click()
    _wait(driver, lambda: _cells(driver) and _cells(driver)[0][1] == "note 21", "next page")
    # The proxy's call, then the page's own call of the tool, by its name.
    assert calls == [("note_list", {"page": 2}), ("note_list", {"page": 3})]


@pytest.mark.django_db(transaction=True)
def test_a_call_asked_through_a_proxy_is_confirmed_in_the_tools_page(
    driver, live_server, settings, calls, capsys
):
    settings.MCP_BRIDGE = {
        "APPS": "always",
        "DISCOVERY": "search",
        "CONFIRM": {"cases": ["account_create"]},
    }
    arguments = {"email": "proxy@example.com", "password": "pw"}
    _open(
        driver, live_server, "call_write_tool", {"name": "account_create", "arguments": arguments}
    )
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation")
    assert driver.find_element("css selector", "h1").text == "Create account"
    assert calls == [] and not Account.objects.exists()
    _shot(driver, "proxied-confirm", capsys)
    driver.find_element("xpath", "//button[normalize-space()='Confirm']").click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "done")
    assert list(Account.objects.values_list("email", flat=True)) == ["proxy@example.com"]
    assert calls == [("account_create", arguments)]


@pytest.mark.django_db(transaction=True)
def test_a_form_creates_an_object_and_shows_a_fields_validation_error(
    driver, live_server, apps_always, calls, capsys
):

    # The model called the tool with a value the view refuses: the page shows the form, the
    # value and the view's message beside its field.
    _open(driver, live_server, "account_create", {"email": "a@b.c", "password": "pw"})
    _wait(driver, lambda: driver.find_elements("css selector", ".field.invalid"), "errors")
    field = driver.find_element("css selector", ".field.invalid")
    assert field.find_element("css selector", "[name]").get_attribute("name") == "email"
    assert "Enter a valid email address." in field.find_element("css selector", ".error").text
    # The serializer's password (style input_type "password", format "password") is masked.
    password = driver.find_element("id", "field-password")
    assert (password.get_attribute("type"), password.get_attribute("value")) == ("password", "pw")
    _shot(driver, "form-error", capsys)

    # The person corrects it and sends the form: a tools/call through the host.
    email = driver.find_element("id", "field-email")
    email.clear()
    email.send_keys("ada@example.com")
    driver.find_element("css selector", "button[type=submit]").click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "done")
    assert Account.objects.filter(email="ada@example.com").exists()
    assert calls[-1] == ("account_create", {"email": "ada@example.com", "password": "pw"})
    assert driver.find_elements("css selector", ".field.invalid") == []
    _shot(driver, "form-created", capsys)


@pytest.mark.django_db(transaction=True)
def test_a_blank_or_null_choice_is_a_select_of_its_choices(
    driver, live_server, apps_always, calls, capsys
):
    """drf-spectacular writes a nullable blank choice as ``anyOf`` its choices, ``BlankEnum``,
    ``NullEnum`` and null: the form offers the choices, and "—" to leave it out."""
    _open(driver, live_server, "members_create", {"nickname": "n" * 60})
    _wait(driver, lambda: driver.find_elements("css selector", ".field.invalid"), "errors")
    status = driver.find_element("id", "field-status")
    assert status.tag_name == "select"
    options = [o.get_attribute("value") for o in status.find_elements("css selector", "option")]
    assert options == ["", "draft", "live"]
    status.find_element("css selector", "option[value=live]").click()
    nickname = driver.find_element("id", "field-nickname")
    nickname.clear()
    nickname.send_keys("ada")
    _shot(driver, "form-choice", capsys)
    driver.find_element("css selector", "button[type=submit]").click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "done")
    assert list(Member.objects.values_list("nickname", "status")) == [("ada", "live")]
    assert calls[-1] == ("members_create", {"nickname": "ada", "status": "live"})


@pytest.mark.django_db(transaction=True)
def test_a_record_shows_hostile_strings_as_text_in_the_hosts_dark_theme(
    driver, live_server, apps_always, calls, capsys
):
    author = Author.objects.create(name=HOSTILE)
    post = Post.objects.create(title=HOSTILE, status="draft", author=author)
    _open(driver, live_server, "posts_retrieve", {"id": post.id}, theme="dark")
    _wait(driver, lambda: driver.find_elements("css selector", "dl dd"), "record")
    shown = driver.execute_script(
        "return [...document.querySelectorAll('dt')].map((dt) => "
        "[dt.textContent, dt.nextElementSibling.textContent]);"
    )
    assert shown[:3] == [["id", str(post.id)], ["title", HOSTILE], ["status", "draft"]]
    assert shown[3][0] == "author" and json.loads(shown[3][1]) == {"name": HOSTILE}
    assert driver.find_elements("css selector", "dd img, dd b") == []
    # The host's theme: its style variables reach the page.
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(30, 30, 34)"
    _shot(driver, "record-dark", capsys)


@pytest.mark.django_db(transaction=True)
def test_an_empty_list_says_so_in_the_callers_language(
    driver, live_server, apps_always, calls, capsys
):
    _open(driver, live_server, "note_list", headers={"Accept-Language": "de"})
    _wait(driver, lambda: _cells(driver) == [["Keine Ergebnisse."]], "empty")
    buttons = driver.find_elements("css selector", ".bar button")
    assert [(b.text, b.is_enabled()) for b in buttons] == [("Zurück", False), ("Weiter", False)]
    assert "0 insgesamt" in driver.find_element("css selector", ".bar .grow").text
    _shot(driver, "collection-empty-de", capsys)


# --- A person confirms in the page where the host cannot ask -------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_person_confirms_in_the_page_and_the_view_runs_once(
    driver, live_server, settings, calls, capsys
):
    # The official client speaks a handshake-era revision: it cannot receive the question (an
    # input request of 2026-07-28), so the person confirms in the page.
    settings.MCP_BRIDGE = {"APPS": "always", "CONFIRM": {"cases": ["account_create"]}}
    arguments = {"email": "ada@example.com", "password": "pw"}
    _open(driver, live_server, "account_create", arguments)
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation")
    # The host's (the model's) call ran nothing: the page shows what will happen.
    assert calls == [] and not Account.objects.exists()
    assert driver.find_element("id", "confirm-question").text.endswith("?")
    shown = driver.execute_script(
        "return [...document.querySelectorAll('.confirm dt')].map((dt) => "
        "[dt.textContent, dt.nextElementSibling.textContent]);"
    )
    assert shown == [["email", "ada@example.com"], ["password", "••••••••"]]  # not shown
    buttons = driver.find_elements("css selector", ".confirm button")
    assert [b.text for b in buttons] == ["Confirm", "Cancel"]
    # The host got an error result for the model, whose text holds no state; the page has it.
    driver.switch_to.default_content()
    log = driver.execute_script("return window.hostLog")
    driver.switch_to.frame(driver.find_element("css selector", "#host iframe"))
    assert {"sent": "account_create", "isError": True} in log
    _shot(driver, "confirm", capsys)

    buttons[0].click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "done")
    assert Account.objects.filter(email="ada@example.com").count() == 1
    assert calls == [("account_create", arguments)]  # the view ran once, confirmed
    assert driver.find_elements("css selector", ".confirm") == []
    _shot(driver, "confirm-done", capsys)


@pytest.mark.django_db(transaction=True)
def test_a_delete_confirmed_in_its_page_or_cancelled(driver, live_server, settings, calls, capsys):
    # A delete has no page of its own: where it asks, it gets the record page to confirm in.
    settings.MCP_BRIDGE = {"APPS": "always", "CONFIRM": {"cases": "destructive"}}
    report = Report.objects.create(name=HOSTILE)
    _open(driver, live_server, "reports_destroy", {"id": report.id})
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation")
    question = driver.find_element("id", "confirm-question").text
    assert HOSTILE in question and "cannot be undone" in question  # the object's name, as text
    assert driver.find_elements("css selector", ".confirm img, .confirm b") == []
    _shot(driver, "confirm-delete", capsys)
    driver.find_element("xpath", "//button[normalize-space()='Cancel']").click()
    _wait(
        driver,
        lambda: "nothing was done" in driver.find_element("css selector", ".status").text,
        "cancelled",
    )
    assert Report.objects.filter(id=report.id).exists() and calls == []

    _open(driver, live_server, "reports_destroy", {"id": report.id})
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation again")
    driver.find_element("xpath", "//button[normalize-space()='Confirm']").click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "deleted")
    assert not Report.objects.filter(id=report.id).exists()
    assert calls == [("reports_destroy", {"id": report.id})]
    assert driver.title != "pwned"
    _shot(driver, "confirm-delete-done", capsys)


@pytest.mark.django_db(transaction=True)
def test_a_late_confirmation_is_refused_and_the_call_asked_again(
    driver, live_server, settings, calls, capsys
):
    settings.MCP_BRIDGE = {"APPS": "always", "CONFIRM": {"cases": ["account_create"]}}
    arguments = {"email": "late@example.com", "password": "pw"}
    _open(driver, live_server, "account_create", arguments)
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation")
    # The person comes back after the state expired: the server refuses it, nothing runs, and
    # the page shows why with a fresh question.
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM_TTL": 1}
    time.sleep(2.1)
    driver.find_element("xpath", "//button[normalize-space()='Confirm']").click()
    # The reason in the person's words (the page's texts), not the server's message to a model.
    late = "The confirmation came too late, and nothing was done. Confirm again below."
    _wait(driver, lambda: driver.find_element("css selector", ".status").text == late, "expired")
    assert not Account.objects.exists() and calls == []
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "asked again")
    _shot(driver, "confirm-expired", capsys)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM_TTL": 300}
    driver.find_element("xpath", "//button[normalize-space()='Confirm']").click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "done")
    assert Account.objects.filter(email="late@example.com").count() == 1
    assert calls == [("account_create", arguments)]


@pytest.mark.django_db(transaction=True)
def test_a_forms_file_field_is_a_file_input_whose_file_the_view_receives(
    driver, live_server, apps_always, calls, capsys, settings, tmp_path
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    report = tmp_path / "zap.xml"
    report.write_bytes(b'<?xml version="1.0"?><OWASPZAPReport><site name="shop"/></OWASPZAPReport>')
    # The model called the upload tool without the file: the form says so beside the field.
    _open(
        driver,
        live_server,
        "import_scan",
        {"engagement": 7, "scan_type": "ZAP Scan"},
        group="uploads",
    )
    _wait(driver, lambda: driver.find_elements("css selector", ".field.invalid"), "missing file")
    picker = driver.find_element("id", "field-file")
    assert picker.get_attribute("type") == "file"
    # The view's help text, without how a model sends a file.
    assert driver.find_element("id", "help-file").text == "The scanner's report."
    assert "file" in driver.find_element("css selector", ".field.invalid").text
    picker.send_keys(str(report))
    _shot(driver, "form-file", capsys)
    driver.find_element("css selector", "button[type=submit]").click()
    _wait(
        driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "imported"
    )
    ((name, arguments),) = calls
    assert name == "import_scan" and arguments["file"]["filename"] == "zap.xml"
    stored = list((tmp_path / "media" / "scans").iterdir())
    assert [path.read_bytes() for path in stored] == [report.read_bytes()]
    _shot(driver, "form-file-sent", capsys)


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_form_is_corrected_sent_and_confirmed_again(
    driver, live_server, settings, calls, capsys
):
    settings.MCP_BRIDGE = {"APPS": "always", "CONFIRM": {"cases": ["account_create"]}}
    _open(driver, live_server, "account_create", {"email": "typo@example", "password": "pw"})
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation")
    driver.find_element("xpath", "//button[normalize-space()='Cancel']").click()
    # Cancelled: the form again, with the model's arguments, nothing run.
    _wait(driver, lambda: driver.find_elements("id", "field-email"), "the form")
    assert "nothing was done" in driver.find_element("css selector", ".status").text
    email = driver.find_element("id", "field-email")
    assert email.get_attribute("value") == "typo@example"
    email.clear()
    email.send_keys("fixed@example.com")
    driver.find_element("css selector", "button[type=submit]").click()
    # The page's own call of the tool asks again, for the corrected arguments.
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "asked again")
    assert "fixed@example.com" in driver.find_element("css selector", ".confirm dl").text
    assert calls == [] and not Account.objects.exists()
    driver.find_element("xpath", "//button[normalize-space()='Confirm']").click()
    _wait(driver, lambda: "Done." in driver.find_element("css selector", ".status").text, "done")
    assert list(Account.objects.values_list("email", flat=True)) == ["fixed@example.com"]
    assert calls == [("account_create", {"email": "fixed@example.com", "password": "pw"})]


@pytest.mark.django_db(transaction=True)
def test_a_confirmed_call_the_view_refuses_shows_its_error_beside_the_field(
    driver, live_server, settings, calls, capsys
):
    settings.MCP_BRIDGE = {"APPS": "always", "CONFIRM": {"cases": ["account_create"]}}
    _open(driver, live_server, "account_create", {"email": "a@b.c", "password": "pw"})
    _wait(driver, lambda: driver.find_elements("css selector", ".confirm"), "confirmation")
    driver.find_element("xpath", "//button[normalize-space()='Confirm']").click()
    # Confirmed, the view ran and refused the email: the form shows why, beside the field.
    _wait(driver, lambda: driver.find_elements("css selector", ".field.invalid"), "view error")
    field = driver.find_element("css selector", ".field.invalid")
    assert "Enter a valid email address." in field.find_element("css selector", ".error").text
    assert not Account.objects.exists() and calls == []
    _shot(driver, "confirm-view-error", capsys)


@pytest.mark.django_db(transaction=True)
def test_a_records_related_object_is_a_link_that_reads_it(
    driver, live_server, apps_always, calls, capsys
):
    # The demo's catalog: a product's category is its key; the group reads a category by its key.
    lamps = Category.objects.create(name="Desk lamps", slug="desk-lamps")
    Product.objects.create(name="Arc lamp", slug="arc-lamp", price="49.00", category=lamps)
    _open(driver, live_server, "products_retrieve", {"slug": "arc-lamp"}, group="catalog")
    link = _wait(driver, lambda: driver.find_elements("css selector", "dd button.link"), "link")[0]
    assert link.text == str(lamps.pk)
    assert link.get_attribute("aria-label") == f"Open category {lamps.pk}"
    link.click()
    _wait(
        driver,
        lambda: driver.find_element("css selector", "h1").text == "Get a category",
        "the category",
    )
    shown = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('dt')].map((dt) => "
        "[dt.textContent, dt.nextElementSibling.textContent]));"
    )
    assert shown["name"] == "Desk lamps" and shown["slug"] == "desk-lamps"
    # Read through a real tools/call of the tool that reads a category, by its key.
    assert ("categories_retrieve", {"id": lamps.pk}) in calls
    _shot(driver, "record-related", capsys)
    driver.find_element("css selector", "button.back").click()
    _wait(driver, lambda: driver.find_elements("css selector", "dd button.link"), "back")
    assert driver.find_element("css selector", "h1").text != "Get a category"


@pytest.mark.django_db(transaction=True)
def test_a_list_is_filtered_and_sorted_through_its_tools_arguments(
    driver, live_server, apps_always, calls, capsys
):
    # The demo's products_list: a "status" argument with choices, "category" and "tag" texts,
    # "search", and an "ordering" with choices.
    lamps = Category.objects.create(name="Lamps", slug="lamps")
    for name, status in (("Arc lamp", "active"), ("Bulb", "discontinued"), ("Cord", "active")):
        slug = name.lower().replace(" ", "-")
        Product.objects.create(name=name, slug=slug, price="9.00", status=status, category=lamps)
    Product.objects.get(slug="cord").tags.add(Tag.objects.create(name="Red", slug="red"))
    _open(driver, live_server, "products_list", group="catalog")

    def names():  # the rows' names (the "No results." row has one cell)
        return [row[1] for row in _cells(driver) if len(row) > 1]

    _wait(driver, lambda: len(_cells(driver)) == 3, "rows")
    picker = driver.find_element("css selector", "select[aria-label='Filter']")
    options = [o.get_attribute("value") for o in picker.find_elements("css selector", "option")]
    assert options == ["category", "status", "tag"]  # not search, ordering, nor the paging
    # A choice filter is a select of its choices; adding it calls the tool with it.
    picker.find_element("css selector", "option[value='status']").click()
    value = _wait(
        driver,
        lambda: driver.find_element(
            "css selector", "select[aria-label='Value of the filter status']"
        ),
        "the status's select",
    )
    value.find_element("css selector", "option[value='discontinued']").click()
    driver.find_element("xpath", "//button[normalize-space()='Add filter']").click()
    _wait(driver, lambda: names() == ["Bulb"], "filtered")
    assert calls[-1] == ("products_list", {"status": "discontinued"})
    chip = driver.find_element("css selector", "button.chip")
    assert chip.text == "status: discontinued ✕"
    # A text filter, chosen by name with the keyboard, added with Enter beside the first.
    picker = driver.find_element("css selector", "select[aria-label='Filter']")
    picker.find_element("css selector", "option[value='tag']").click()
    text = _wait(
        driver,
        lambda: driver.find_element("css selector", "input[aria-label='Value of the filter tag']"),
        "the tag's input",
    )
    assert text.get_attribute("type") == "text"
    text.send_keys("red\n")
    _wait(driver, lambda: _cells(driver) and _cells(driver)[0][0] == "No results.", "no rows")
    assert calls[-1] == ("products_list", {"status": "discontinued", "tag": "red"})
    _shot(driver, "collection-filtered", capsys)
    # Taking a filter off calls the tool without it.
    driver.find_element("css selector", "button.chip[aria-label^='Remove the filter tag']").click()
    _wait(driver, lambda: names() == ["Bulb"], "tag taken off")
    assert calls[-1] == ("products_list", {"status": "discontinued"})
    driver.find_element("css selector", "button.chip").click()
    _wait(driver, lambda: len(_cells(driver)) == 3, "all again")
    # The sort order is a select of the ordering's choices.
    sort = driver.find_element("css selector", "select[aria-label='Sort by']")
    sort.find_element("css selector", "option[value='-name']").click()
    _wait(driver, lambda: names() == ["Cord", "Bulb", "Arc lamp"], "sorted")
    assert calls[-1] == ("products_list", {"ordering": "-name"})
    assert driver.execute_script("return document.activeElement.getAttribute('aria-label')") == (
        "Sort by"
    )
    _shot(driver, "collection-filters", capsys)
