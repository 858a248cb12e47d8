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
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from demo_project.shop.demo_data import DEMO_TOKENS
from tests.mcp_client import ACCEPT, McpClient

pytestmark = pytest.mark.urls("tests.oauth_urls")

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
ARTIFACTS = Path(__file__).parent / ".artifacts"
STAFF_ONLY = {"shop_stats", "orders_list", "products_create", "products_destroy"}


@pytest.fixture
def demo(db):
    call_command("load_demo_data", verbosity=0)


def listed_on_page(html: str) -> set[str]:
    return set(re.findall(r'data-tool="([^"]+)" data-search', html))


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


def _try(driver, tool: str, values: dict[str, str] | None = None) -> tuple[str, str]:
    """Open the tool's "Try it", fill ``values`` in, submit, and return (heading, result text)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    article = driver.find_element(By.ID, f"tool-{tool}")
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
    return result.find_element(By.TAG_NAME, "h4").text, result.find_element(By.TAG_NAME, "pre").text


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_in_chromium_anonymous_and_staff_see_their_tools_and_run_them(browser, live_server, capsys):
    from selenium.webdriver.common.by import By

    call_command("load_demo_data", verbosity=0)
    url = f"{live_server.url}/mcp/backoffice/"

    browser.get(url)
    anonymous = _page_tools(browser)
    assert anonymous and not STAFF_ONLY & anonymous
    # A call the view refuses is shown as an error.
    heading, text = _try(browser, "products_retrieve", {"slug": "no-such-product"})
    assert heading == "Error" and '"isError": true' in text
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
    heading, text = _try(browser, "shop_stats")
    assert heading == "Result" and '"isError": false' in text and "orders_by_status" in text

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
    heading, text = _try(
        browser, "products_partial_update", {"slug": "arc-led-desk-lamp", "stock": "41"}
    )
    _screenshot(browser, "staff", capsys)
    assert heading == "Result", text
    assert '"isError": false' in text and '\\"stock\\":41' in text
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
    WebDriverWait(browser, 20).until(
        lambda _: result.is_displayed() and '"isError": false' in result.text
    )
    assert not Product.objects.filter(slug="arc-led-desk-lamp").exists()
