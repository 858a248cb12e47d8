"""The tool explorer: a browser's GET of an endpoint gets an HTML page of the tools it may use.

The first tests read the page over Django's test client; the last ones drive Debian's headless
Chromium (``chromium`` and ``chromium-driver``, installed by scripts/test) through Selenium:
they load the page as an anonymous and as a staff user, compare the tool lists, submit the
"Try it" forms and read the results, keep a screenshot of each page under
``tests/.artifacts/`` (the path is printed), and check that the page asks nothing of another
site. Without Chromium they are skipped with the reason, and fail under
``MCP_BRIDGE_REQUIRE_PEERS=1`` (CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from html import unescape
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import include, path

from demo_project.shop.demo_data import DEMO_PASSWORDS, DEMO_TOKENS
from demo_project.shop.models import Category
from mcp_bridge.transport.explorer import inline_code
from tests.mcp_client import ACCEPT, McpClient
from tests.oauth_urls import urlpatterns as oauth_urlpatterns

pytestmark = pytest.mark.urls("tests.oauth_urls")

#: tests.oauth_urls with DRF's login view (rest_framework.urls), for the sign-in link.
urlpatterns = [*oauth_urlpatterns, path("api-auth/", include("rest_framework.urls"))]

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
ARTIFACTS = Path(__file__).parent / ".artifacts"
STAFF_ONLY = {"shop_stats", "orders_list", "products_create", "products_destroy"}


@pytest.fixture
def demo(db):
    call_command("load_demo_data", verbosity=0)


def listed_on_page(html: str) -> set[str]:
    return set(re.findall(r'data-tool="([^"]+)" data-search', html))


def browsed_on_page(html: str) -> set[str]:
    """The tools of the page's resources (not the meta-tools of search mode's own section)."""
    return listed_on_page(html.split('id="listed-heading"')[0])


def names_listed(client: Client, group: str = "backoffice") -> set[str]:
    return {t["name"] for t in McpClient(client, f"/mcp/{group}/").list_tools()}


PROTECTED = {
    "OAUTH_GROUPS": {"backoffice": ["backoffice"]},
    "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
}


def test_a_browser_gets_the_explorer_and_mcp_clients_keep_405(demo):
    client = Client()
    page = client.get("/mcp/catalog/", headers={"Accept": BROWSER})
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert "http://testserver/mcp/catalog/" in html
    assert listed_on_page(html) == {
        t["name"] for t in McpClient(client, "/mcp/catalog/").list_tools()
    }
    for accept in (ACCEPT, "text/event-stream", "application/json", "*/*", None):
        headers = {"Accept": accept} if accept else {}
        refused = client.get("/mcp/catalog/", headers=headers)
        assert refused.status_code == 405, accept
        assert refused["Allow"] == "POST"


def test_the_page_shows_texts_annotations_arguments_schemas_and_configs(demo):
    html = Client().get("/mcp/catalog/", headers={"Accept": BROWSER}).content.decode()
    assert "Search products" in html  # a title
    assert "read-only" in html  # an annotation badge
    assert '<th scope="col">Required</th>' in html
    assert "inputSchema" in html and "outputSchema" in html
    for client in (
        "claude mcp add --transport http",
        "mcp.json",
        "@modelcontextprotocol/inspector",
        "streamable_http_client",
    ):
        assert client in html
    for profile in ("defs", "inline", "portable"):
        assert f"<code>{profile}</code>" in html
    assert "tokens for the list" in html
    assert 'id="tool-search"' in html and '<label for="tool-search">' in html


def test_the_page_speaks_the_viewers_language(demo):
    english = Client().get("/mcp/catalog/", headers={"Accept": BROWSER})
    german = Client().get("/mcp/catalog/", headers={"Accept": BROWSER, "Accept-Language": "de"})
    assert german["Content-Language"] == "de" and english["Content-Language"] == "en"
    listed = McpClient(Client(), "/mcp/catalog/", HTTP_ACCEPT_LANGUAGE="de")
    title = next(t["title"] for t in listed.list_tools() if t["name"] == "products_search")
    assert title in german.content.decode()


def test_the_page_lists_only_what_the_viewer_may_use(demo):
    anonymous = listed_on_page(
        Client().get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    )
    staff = Client()
    staff.force_login(User.objects.get(username="alice"))
    everything = listed_on_page(
        staff.get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    )
    assert STAFF_ONLY <= everything
    assert not STAFF_ONLY & anonymous
    assert anonymous < everything


def test_a_setting_turns_the_explorer_off(demo, settings):
    settings.MCP_BRIDGE = {"EXPLORER": False}
    assert Client().get("/mcp/catalog/", headers={"Accept": BROWSER}).status_code == 405


def test_a_protected_groups_page_asks_for_the_endpoints_authorization(demo, settings):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"backoffice": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    refused = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER})
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"].startswith("Bearer ")
    token = Client().get(
        "/mcp/backoffice/",
        headers={"Accept": BROWSER, "Authorization": f"Token {DEMO_TOKENS['alice']}"},
    )
    assert token.status_code == 200 and STAFF_ONLY <= listed_on_page(token.content.decode())


def test_in_search_mode_the_page_browses_every_tool_the_viewer_may_use(demo, settings):
    staff = Client()
    staff.force_login(User.objects.get(username="alice"))
    # What each viewer may use: tools/list of the same group in direct mode.
    settings.MCP_BRIDGE = {"DISCOVERY": "direct"}
    anonymous_may, staff_may = names_listed(Client()), names_listed(staff)
    settings.MCP_BRIDGE = {"DISCOVERY": "search"}
    listed = names_listed(Client())
    assert not listed & anonymous_may  # clients list only the meta-tools
    anonymous = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    assert browsed_on_page(anonymous) == anonymous_may
    # The meta-tools clients list are there too, in their own section, with "Try it".
    assert listed_on_page(anonymous) - browsed_on_page(anonymous) == listed
    everything = staff.get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    assert browsed_on_page(everything) == staff_may and STAFF_ONLY <= staff_may
    # By resource: each tool under its resource's heading, with its REST operation.
    sections = re.findall(
        r'<details class="resource"[^>]*>\s*<summary><h3>([^<]+)</h3>', everything
    )
    assert len(sections) >= 2 and len(set(sections)) == len(sections)
    # The resources the model's overview (search_tools with no words) gives the same viewer.
    overview = McpClient(staff, "/mcp/backoffice/", "2025-11-25").call(
        "search_tools", {"query": ""}
    )
    resources = json.loads(overview["content"][0]["text"])["resources"]
    assert sections == [resource["resource"] for resource in resources]
    assert '<span class="http-method">PATCH</span> /api/products/{slug}/' in everything
    assert 'data-method="GET" data-path="/api/stats/"' in everything


def test_the_tools_come_first_and_the_client_set_up_folds_away(demo):
    html = Client().get("/mcp/catalog/", headers={"Accept": BROWSER}).content.decode()
    assert html.index('id="tools-heading"') < html.index('id="connect-heading"')
    assert '<details id="connect">' in html  # closed until opened


def test_an_anonymous_viewer_of_a_public_group_is_offered_to_sign_in(demo):
    html = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    assert '<a href="/accounts/login/?next=/mcp/backoffice/">Sign in</a>' in html
    staff = Client()
    staff.force_login(User.objects.get(username="alice"))
    signed_in = staff.get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    assert "/accounts/login/" not in signed_in and "signed in as alice" in signed_in


def test_a_viewer_signed_in_with_a_session_signs_out_from_the_page(demo):
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(User.objects.get(username="alice"))
    html = staff.get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    form = re.search(r'<form class="sign-out" method="post" action="([^"]+)">(.*?)</form>', html)
    assert form and form.group(1) == "/accounts/logout/"  # Django's LogoutView takes a POST
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]+)"', form.group(2)))
    assert fields["next"] == "/mcp/backoffice/" and fields["csrfmiddlewaretoken"]
    signed_out = staff.post(form.group(1), fields)
    assert signed_out.status_code == 302 and signed_out["Location"] == "/mcp/backoffice/"
    after = staff.get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    assert "signed in as" not in after and 'class="sign-out"' not in after
    assert '<a href="/accounts/login/?next=/mcp/backoffice/">Sign in</a>' in after


def test_descriptions_show_markdown_inline_code_as_code(demo):
    html = Client().get("/mcp/catalog/", headers={"Accept": BROWSER}).content.decode()
    described = re.findall(r'<p style="white-space: pre-line">(.*?)</p>', html, re.DOTALL)
    assert any("<code>children</code>" in text for text in described)
    assert not [text for text in described if "`" in text]
    # Escaped, inside a code span and out of it; a lone backtick stays.
    assert str(inline_code("Use `<b>` & `x`, not ` alone")) == (
        "Use <code>&lt;b&gt;</code> &amp; <code>x</code>, not ` alone"
    )


def test_the_page_shows_the_tools_as_a_client_of_its_revision_lists_them(demo):
    staff = Client()
    staff.force_login(User.objects.get(username="alice"))
    html = staff.get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    modern = McpClient(
        Client(), "/mcp/backoffice/", "2026-07-28", Authorization=f"Token {DEMO_TOKENS['alice']}"
    )
    (stats,) = [t for t in modern.list_tools() if t["name"] == "shop_stats"]
    article = html.split('id="tool-shop_stats"')[1].split("</article>")[0]
    shown = re.search(r"<summary>outputSchema</summary><pre>(.*?)</pre>", article, re.DOTALL)
    assert json.loads(unescape(shown.group(1))) == stats["outputSchema"]
    assert "Protocol revision 2026-07-28" in html


def test_the_page_does_not_count_the_tools_hidden_from_the_viewer(demo):
    html = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    shown = browsed_on_page(html)
    assert shown and not STAFF_ONLY & shown
    size = re.search(r'<p id="group-size">(.*?)</p>', html, re.DOTALL).group(1)
    assert size.startswith(f"{len(shown)} tools you may use.")
    assert not re.search(r"\bof \d", size)


@pytest.mark.parametrize("project_middleware", [False, True])
def test_every_page_of_the_explorer_forbids_framing(demo, settings, project_middleware):
    if project_middleware:  # a project that allows its own pages to frame each other
        settings.MIDDLEWARE = [
            *settings.MIDDLEWARE,
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
        ]
        settings.X_FRAME_OPTIONS = "SAMEORIGIN"
    page = Client().get("/mcp/catalog/", headers={"Accept": BROWSER})
    settings.MCP_BRIDGE = PROTECTED
    sign_in = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER})
    for response in (page, sign_in):
        assert response["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


def test_a_protected_groups_page_offers_to_sign_in(demo, settings):
    settings.MCP_BRIDGE = PROTECTED
    page = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER})
    # The endpoint's own challenge, for a browser as for a client...
    assert page.status_code == 401 and page["WWW-Authenticate"].startswith("Bearer ")
    # ...with a page that offers the project's login (LOGIN_URL), and comes back here.
    assert page["Content-Type"].startswith("text/html")
    assert 'id="sign-in" href="/accounts/login/?next=/mcp/backoffice/"' in page.content.decode()
    client = McpClient(Client(), "/mcp/backoffice/").post(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert client.status_code == 401 and client["Content-Type"] == "application/json"


@pytest.mark.urls(__name__)
def test_the_sign_in_link_is_drfs_login_when_login_url_is_not_served(demo, settings):
    settings.MCP_BRIDGE = PROTECTED
    settings.LOGIN_URL = "/no/such/login/"
    html = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER}).content.decode()
    assert 'href="/api-auth/login/?next=/mcp/backoffice/"' in html


def test_without_a_login_page_the_sign_in_page_says_what_to_set(demo, settings):
    settings.MCP_BRIDGE = PROTECTED
    settings.LOGIN_URL = "/no/such/login/"  # and tests.oauth_urls has no rest_framework.urls
    page = Client().get("/mcp/backoffice/", headers={"Accept": BROWSER})
    html = page.content.decode()
    assert page.status_code == 401 and 'id="sign-in"' not in html
    assert "LOGIN_URL" in html and "rest_framework.urls" in html


def test_a_result_carries_the_views_http_status(demo):
    staff = McpClient(
        Client(),
        "/mcp/backoffice/",
        "2025-11-25",
        Authorization=f"Token {DEMO_TOKENS['alice']}",
    )
    created = staff.call(
        "products_create",
        {
            "name": "Lamp",
            "slug": "lamp-201",
            "price": "9.50",
            "category": Category.objects.first().pk,
        },
    )
    missing = staff.call("products_retrieve", {"slug": "no-such-product"})
    read = staff.call("products_retrieve", {"slug": "lamp-201"})
    deleted = staff.call("products_destroy", {"slug": "lamp-201"})
    statuses = [r["_meta"]["mcp-bridge/status"] for r in (created, missing, read, deleted)]
    assert statuses == [201, 404, 200, 204]


# --- In a real browser ---------------------------------------------------------------------------


def _chromium() -> tuple[str, str] | str:
    """The paths of chromium and chromedriver, or why there are none."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return 'Selenium is not installed (pip install -e ".[test]")'
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        return "headless Chromium is missing: apt-get install chromium chromium-driver (scripts/test does)"
    return browser, driver


@pytest.fixture
def browser():
    found = _chromium()
    if isinstance(found, str):
        if os.environ.get("MCP_BRIDGE_REQUIRE_PEERS") == "1":
            pytest.fail(found, pytrace=False)
        pytest.skip(found)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=412,915",
    ):
        options.add_argument(argument)  # a phone-sized window: the page must work there
    options.binary_location = found[0]
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _screenshot(driver, name: str, capsys) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"explorer-{name}.png"
    driver.save_screenshot(str(path))
    with capsys.disabled():  # printed past pytest's capture: where to find the artefact
        print(f"\nscreenshot of the explorer ({name}): {path}")


def _page_tools(driver) -> set[str]:
    from selenium.webdriver.common.by import By

    return {
        article.get_attribute("data-tool")
        for article in driver.find_elements(By.CSS_SELECTOR, "article.tool")
    }


def _requests_outside(driver, site: str) -> list[str]:
    """Every URL the page loaded or fetched (Resource Timing) that is not on ``site``."""
    urls = driver.execute_script(
        "return performance.getEntries().map(function (e) { return e.name; })"
    )
    origin = urlsplit(site)
    return [
        url
        for url in urls
        if url.startswith(("http:", "https:"))
        and (urlsplit(url).scheme, urlsplit(url).netloc) != (origin.scheme, origin.netloc)
    ]


def _try(driver, tool: str, values: dict[str, str] | None = None) -> tuple[str, str, str]:
    """Open the tool's "Try it", fill ``values`` in, submit, and return (heading, status line,
    result text)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    article = driver.find_element(By.ID, f"tool-{tool}")
    # Its resource's section, open (a big group's are closed until opened).
    driver.execute_script(
        "var r = arguments[0].closest('details'); if (r) { r.open = true; }", article
    )
    summary = article.find_element(By.CSS_SELECTOR, "details.try > summary")
    driver.execute_script("arguments[0].scrollIntoView()", summary)
    summary.click()
    for name, value in (values or {}).items():
        field = article.find_element(By.ID, f"arg-{tool}-{name}")
        field.clear()
        field.send_keys(value)
    article.find_element(By.CSS_SELECTOR, "form.try-form button[type=submit]").click()
    result = article.find_element(By.CSS_SELECTOR, ".result")
    WebDriverWait(driver, 20).until(lambda _: result.is_displayed() and result.text.strip())
    driver.execute_script("arguments[0].scrollIntoView()", result)  # for the screenshot
    return (
        result.find_element(By.CLASS_NAME, "result-heading").text,
        result.find_element(By.CLASS_NAME, "result-status").text,
        result.find_element(By.TAG_NAME, "pre").text,
    )


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_in_chromium_anonymous_and_staff_see_their_tools_and_run_them(browser, live_server, capsys):
    from selenium.webdriver.common.by import By

    call_command("load_demo_data", verbosity=0)
    url = f"{live_server.url}/mcp/backoffice/"

    browser.get(url)
    anonymous = _page_tools(browser)
    assert anonymous and not STAFF_ONLY & anonymous
    # A call the view refuses is shown as an error, with the view's status and the operation.
    heading, status, text = _try(browser, "products_retrieve", {"slug": "no-such-product"})
    assert heading == "Error", text
    assert status == "HTTP 404 Not Found · GET /api/products/no-such-product/"
    assert json.loads(text)["code"] == 404
    _screenshot(browser, "anonymous", capsys)
    assert _requests_outside(browser, live_server.url) == []

    # Signed in as the demo's staff user, with Django's session cookie.
    client = Client()
    client.force_login(User.objects.get(username="alice"))
    browser.add_cookie(
        {"name": "sessionid", "value": client.cookies["sessionid"].value, "path": "/"}
    )
    browser.get(url)
    staff = _page_tools(browser)
    assert STAFF_ONLY <= staff and anonymous < staff
    heading, status, text = _try(browser, "shop_stats")
    assert heading == "Result" and status == "HTTP 200 OK · GET /api/stats/"
    # structuredContent once, pretty-printed (not the text block's JSON string beside it).
    assert text.count('"orders_by_status"') == 1 and "\n  " in text
    # What a client of the page's revision (2026-07-28) gets: the view's answer itself, not the
    # handshake era's {"result": ...}.
    assert "orders_by_status" in json.loads(text) and "Protocol revision 2026-07-28" in (
        browser.find_element(By.TAG_NAME, "footer").text
    )

    # The search box narrows the list as one types.
    search = browser.find_element(By.ID, "tool-search")
    search.send_keys("statistics")
    shown = {
        a.get_attribute("data-tool")
        for a in browser.find_elements(By.CSS_SELECTOR, "article.tool")
        if a.is_displayed()
    }
    assert shown == {"shop_stats"}
    search.clear()
    search.send_keys(" ")  # an input event with no words: every tool again

    # A write, with session authentication's CSRF check passed by the page's token.
    heading, status, text = _try(
        browser, "products_partial_update", {"slug": "arc-led-desk-lamp", "stock": "41"}
    )
    _screenshot(browser, "staff", capsys)
    assert heading == "Result", text
    assert status == "HTTP 200 OK · PATCH /api/products/arc-led-desk-lamp/"
    assert json.loads(text)["stock"] == 41
    assert _requests_outside(browser, live_server.url) == []


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_in_chromium_a_visitor_signs_in_and_browses_a_search_mode_group(
    browser, live_server, capsys, settings
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    call_command("load_demo_data", verbosity=0)
    settings.MCP_BRIDGE = {**PROTECTED, "DISCOVERY": "search"}
    url = f"{live_server.url}/mcp/backoffice/"

    # A protected group: the page offers the project's login, not the JSON-RPC error.
    browser.get(url)
    sign_in = browser.find_element(By.ID, "sign-in")
    _screenshot(browser, "sign-in", capsys)
    sign_in.click()
    browser.find_element(By.NAME, "username").send_keys("alice")
    browser.find_element(By.NAME, "password").send_keys(DEMO_PASSWORDS["alice"])
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url == url)

    # Back on the page, signed in: every tool alice may use, by resource, though clients
    # list only the search tools.
    browsed = browsed_on_page(browser.page_source)
    _screenshot(browser, "search-mode-resources", capsys)
    assert STAFF_ONLY <= browsed
    assert not browsed & {
        t["name"]
        for t in McpClient(
            live_server.url, "/mcp/backoffice/", Authorization=f"Token {DEMO_TOKENS['alice']}"
        ).list_tools()
    }
    heading, status, text = _try(browser, "orders_list")
    assert heading == "Result" and status == "HTTP 200 OK · GET /api/orders/", text
    assert json.loads(text)["count"] == 2  # as a 2026-07-28 client gets it: not wrapped
    # The search counts what the page counts: the tools of the resources, not the search tools
    # of search mode listed apart (the page said 72 and the search "6 of 77").
    total = int(browser.find_element(By.ID, "group-size").text.split()[0])
    search = browser.find_element(By.ID, "tool-search")
    search.send_keys("order")
    status = browser.find_element(By.ID, "search-status").text
    shown = [
        a
        for a in browser.find_elements(By.CSS_SELECTOR, "article.tool")
        if a.is_displayed() and a.get_attribute("data-tool") in browsed
    ]
    assert status == f"{len(shown)} of {total} tools match" and total == len(browsed)
    _screenshot(browser, "search-mode", capsys)
    assert _requests_outside(browser, live_server.url) == []


def test_a_signed_in_staff_user_runs_a_protected_groups_tool_from_the_page(demo, settings):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"backoffice": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(username="alice"))
    page = browser.get("/mcp/backoffice/", headers={"Accept": BROWSER})
    assert page.status_code == 200 and STAFF_ONLY <= listed_on_page(page.content.decode())
    # The page's script reads its data from the element Django's json_script wrote.
    config = re.search(
        r'<script id="mcp-explorer-config" type="application/json">(.*?)</script>',
        page.content.decode(),
    ).group(1)
    token = json.loads(config)["csrfToken"]
    # What the page's script sends: the session cookie, and the CSRF token in X-CSRFToken.
    call = McpClient(browser, "/mcp/backoffice/", "2025-11-25", X_CSRFToken=token)
    result = call.call("products_partial_update", {"slug": "arc-led-desk-lamp", "stock": 7})
    assert result["isError"] is False, result
    without_token = McpClient(browser, "/mcp/backoffice/", "2025-11-25")
    refused = without_token.request(
        "tools/call",
        {"name": "products_partial_update", "arguments": {"slug": "arc-led-desk-lamp", "stock": 8}},
    )
    # A session's write without the CSRF token: the view's SessionAuthentication refuses it.
    result = refused.json()["result"]
    assert result["isError"] is True and '"code":403' in result["content"][0]["text"]


@pytest.mark.urls("tests.test_versioning")
@pytest.mark.django_db
def test_each_version_has_its_page():
    for version in ("v1", "v2"):
        page = Client().get(f"/mcp/versioned/{version}/", headers={"Accept": BROWSER})
        assert page.status_code == 200
        html = page.content.decode()
        assert f"http://testserver/mcp/versioned/{version}/" in html
        listed = McpClient(Client(), f"/mcp/versioned/{version}/").list_tools()
        assert listed_on_page(html) == {tool["name"] for tool in listed}


def test_the_page_writes_the_schemas_in_the_asked_profile(demo):
    defs = Client().get("/mcp/catalog/", headers={"Accept": BROWSER}).content.decode()
    portable = Client().get("/mcp/catalog/?schema=portable", headers={"Accept": BROWSER})
    assert portable.status_code == 200
    # The portable profile has no $ref at all (docs/tools.md, "Schema profiles").
    assert "&quot;$ref&quot;" in defs and "&quot;$ref&quot;" not in portable.content.decode()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_in_chromium_try_it_asks_the_same_question_before_a_destructive_call(
    browser, live_server, settings, capsys
):
    """Issue 36: with the backoffice's destructive tools asking, "Try it" shows the question of
    the InputRequiredResult in the page; declined, nothing changes; confirmed, the call runs."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from demo_project.shop.models import Product

    call_command("load_demo_data", verbosity=0)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"backoffice": "destructive"}}
    client = Client()
    client.force_login(User.objects.get(username="alice"))
    browser.get(f"{live_server.url}/mcp/backoffice/")
    browser.add_cookie(
        {"name": "sessionid", "value": client.cookies["sessionid"].value, "path": "/"}
    )
    browser.get(f"{live_server.url}/mcp/backoffice/")
    article = browser.find_element(By.ID, "tool-products_destroy")

    def asked() -> str:
        article.find_element(By.CSS_SELECTOR, "details.try > summary").click() if not (
            article.find_element(By.CSS_SELECTOR, "details.try").get_attribute("open")
        ) else None
        field = article.find_element(By.ID, "arg-products_destroy-slug")
        field.clear()
        field.send_keys("arc-led-desk-lamp")
        article.find_element(By.CSS_SELECTOR, "form.try-form button[type=submit]").click()
        question = WebDriverWait(browser, 20).until(
            lambda _: article.find_element(By.CSS_SELECTOR, ".question-message")
        )
        return question.text

    question = asked()
    assert re.fullmatch(
        r"Delete a product 'Arc LED desk lamp' \(id \d+\)\? This cannot be undone\.", question
    ), question
    article.find_element(By.CSS_SELECTOR, ".question-decline").click()
    result = article.find_element(By.CSS_SELECTOR, ".result")
    WebDriverWait(browser, 20).until(lambda _: result.is_displayed() and result.text.strip())
    assert (
        "nothing was changed" in result.text
        and Product.objects.filter(slug="arc-led-desk-lamp").exists()
    )

    asked()
    box = article.find_element(By.CSS_SELECTOR, ".question input[type=checkbox]")
    box.click()
    _screenshot(browser, "confirmation", capsys)
    article.find_element(By.CSS_SELECTOR, ".question-accept").click()
    # The confirmed call's result, shown as every result is: heading, the view's status and the
    # operation (a delete answers 204, no body).
    WebDriverWait(browser, 20).until(lambda _: result.is_displayed() and "HTTP 204" in result.text)
    assert result.find_element(By.CLASS_NAME, "result-heading").text == "Result"
    assert "DELETE /api/products/arc-led-desk-lamp/" in result.text, result.text
    assert not Product.objects.filter(slug="arc-led-desk-lamp").exists()
