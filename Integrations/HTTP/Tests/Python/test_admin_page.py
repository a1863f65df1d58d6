"""The admin page in Debian's headless Chromium, driven through WebDriver
(chromium-driver, with PyPI's selenium), on a fleet of two Stowage servers
sharing one PostgreSQL database.

It starts both servers (the StowageHTTPFleetServer executable given as the
first argument) against the PostgreSQL server whose STOWAGE_POSTGRES_*
variables Integrations/Postgres/Scripts/postgres.sh sets, opens one browser on
each, and checks that:
- an editor signs in, finds a flag by searching, toggles it, sets a typed
  value (and is refused one of another type, with nothing written), edits a
  targeting rule (and is refused one that does not parse), and reads the
  history, with diffs and her name on every change;
- a viewer on the second server sees the settings with the secret one
  redacted, is shown no control that changes anything, and a change request
  he forges (with his own CSRF token, and without one) is refused and
  recorded in the history under his name;
- a toggle in the first browser is visible in the second browser and in the
  second server's own observer within 1 second, and an operator's psql
  UPDATE reaches both open pages without a reload;
- the stowage tool (the third argument) sets a flag for the fleet through the
  second server's page, which both open pages show without a reload, and is
  refused a value of the wrong type; and it reads the same history through
  the page's JSON, with a token: per key, with refusals, and since a time;
- screenshots of the list, an edit and a history are written to the folder
  given as the second argument.
"""

import os
import queue
import subprocess
import sys
import threading
import time
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from checks import check, finish

NAMESPACE = "admin-" + uuid.uuid4().hex[:12]
SESSION_KEY = uuid.uuid4().hex + uuid.uuid4().hex
USERS = "alice:editor:alice-password,victor:viewer:victor-password"
TOOL_TOKEN = uuid.uuid4().hex
DEFINITIONS = (
    '{"flags": {"rate-limit": {"state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "low",'
    ' "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "high", "low"]}}}}'
)

class Server:
    """A StowageHTTPFleetServer process: its port, and every line it prints, timed as read."""

    def __init__(self, executable):
        environment = dict(os.environ, STOWAGE_HTTP_NAMESPACE=NAMESPACE, STOWAGE_HTTP_TOKEN_SHA256="0" * 64,
                           STOWAGE_HTTP_SESSION_KEY=SESSION_KEY, STOWAGE_HTTP_ADMIN_USERS=USERS, STOWAGE_HTTP_PRINT_OBSERVED="1",
                           STOWAGE_HTTP_ADMIN_TOKEN=f"ops-tool:editor:{TOOL_TOKEN}")
        self.process = subprocess.Popen([executable], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment, text=True)
        self.lines = queue.Queue()
        self.observed = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            line = self.lines.get(timeout=120)
            if line is None:
                raise RuntimeError("the server ended before it listened")
            if line.startswith("listening on "):
                break
        self.url = f"http://localhost:{int(line.split()[-1])}"

    def _read(self):
        for line in self.process.stdout:
            line = line.strip()
            if line.startswith("observed "):
                with self.lock:
                    self.observed.append((time.monotonic(), line))
            else:
                self.lines.put(line)
        self.lines.put(None)

    def apply(self, payload):
        self.process.stdin.write(payload + "\n")
        self.process.stdin.flush()
        answer = self.lines.get(timeout=60)
        assert answer == "applied", answer

    def first_observed(self, line, after):
        with self.lock:
            return next((at for at, seen in self.observed if seen == line and at >= after), None)

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def psql(sql):
    subprocess.run(
        ["psql", "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True, capture_output=True,
        env=dict(os.environ, PGHOST=os.environ["STOWAGE_POSTGRES_HOST"], PGPORT=os.environ["STOWAGE_POSTGRES_PORT"],
                 PGUSER=os.environ["STOWAGE_POSTGRES_USER"], PGPASSWORD=os.environ["STOWAGE_POSTGRES_PASSWORD"],
                 PGDATABASE=os.environ["STOWAGE_POSTGRES_DATABASE"]))


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", "--disable-gpu"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def sign_in(driver, server, name, password):
    driver.get(server.url + "/admin/")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "flags"))
    wait_live(driver)


def wait_live(driver):
    """Until the page's event stream is open, so that it sees every change made after."""
    WebDriverWait(driver, 10, poll_frequency=0.02).until(lambda d: d.execute_script("return document.body.dataset.live") == "connected")


def settled(read):
    """What `read` finds, read again when a live update replaced the elements it was reading."""
    for _ in range(50):
        try:
            return read()
        except StaleElementReferenceException:
            time.sleep(0.01)
    return read()


def text(driver, element_id):
    return settled(lambda: driver.find_element(By.ID, element_id).text)


def text_after_submit(driver, element_id):
    """The text of an element the page a form's submission loads shows: a click returns before that page may have loaded."""
    WebDriverWait(driver, 10, poll_frequency=0.02).until(lambda d: d.find_elements(By.ID, element_id))
    return text(driver, element_id)


def row_value(driver, key):
    def read():
        rows = driver.find_elements(By.CSS_SELECTOR, f'#flags tr[data-key="{key}"] td.value code')
        return rows[0].text if rows else None
    return settled(read)


def visible_keys(driver):
    return settled(lambda: [row.get_attribute("data-key") for row in driver.find_elements(By.CSS_SELECTOR, "#flags tbody tr") if row.is_displayed()])


def history_rows(driver):
    return settled(lambda: [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.history tbody tr")])


def main():
    executable, screenshots, tool = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(screenshots, exist_ok=True)
    first, second = Server(executable), Server(executable)
    editor = viewer = None
    try:
        first.apply(DEFINITIONS)
        psql(f"INSERT INTO stowage.entries (namespace, key, value) VALUES ('{NAMESPACE}-settings', 'region', '\"eu-west-1\"'),"
             f" ('{NAMESPACE}-settings', 'database-password', '\"hunter2-{SESSION_KEY[:8]}\"')")
        editor, viewer = browser(), browser()

        print("An editor signs in on the first server and finds a flag:")
        sign_in(editor, first, "alice", "alice-password")
        check("alice · editor" in text(editor, "signed-in-as"), "the page names who is signed in")
        check({"new-checkout", "rate-limit", "banner"} <= set(visible_keys(editor)), f"every flag is listed: {visible_keys(editor)}")
        editor.find_element(By.ID, "search").send_keys("checkout")
        check(visible_keys(editor) == ["new-checkout"], f"searching 'checkout' leaves only new-checkout: {visible_keys(editor)}")
        editor.find_element(By.ID, "search").clear()
        editor.find_element(By.ID, "search").send_keys(" ")
        rows = {row.get_attribute("data-key"): row.text for row in editor.find_elements(By.CSS_SELECTOR, "#flags tbody tr")}
        check("Int" in rows["rate-limit"] and "targets" in rows["rate-limit"], f"rate-limit shows its type and that it targets: {rows['rate-limit']}")
        editor.find_element(By.ID, "search").clear()
        editor.execute_script("document.getElementById('search').dispatchEvent(new Event('input'))")

        print("A viewer signs in on the second server:")
        sign_in(viewer, second, "victor", "victor-password")
        settings = viewer.find_element(By.ID, "settings").text
        check("eu-west-1" in settings and "database-password" in settings and "secret" in settings, "the settings are listed, the secret one as secret")
        check("hunter2" not in viewer.page_source, "the secret's value is nowhere in the page")
        check(not viewer.find_elements(By.CSS_SELECTOR, "button.toggle"), "a viewer gets no toggle")
        editor.save_screenshot(f"{screenshots}/admin-list.png")

        print("A toggle in the first browser reaches the second browser and the second server:")
        check(row_value(viewer, "new-checkout") == "false", "new-checkout starts false in the second browser")
        toggled_at = time.monotonic()
        editor.find_element(By.CSS_SELECTOR, 'button[data-toggle="new-checkout"]').click()
        WebDriverWait(viewer, 5, poll_frequency=0.01).until(lambda d: row_value(d, "new-checkout") == "true")
        seen_by_browser = time.monotonic() - toggled_at
        deadline = time.monotonic() + 5
        while second.first_observed("observed new-checkout true", toggled_at) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        observed = second.first_observed("observed new-checkout true", toggled_at)
        seen_by_server = observed - toggled_at if observed else None
        check(seen_by_browser < 1.0, f"the second browser shows it {seen_by_browser * 1000:.0f} ms after the click, without a reload")
        check(seen_by_server is not None and seen_by_server < 1.0,
              f"the second server's observer saw it {seen_by_server * 1000 if seen_by_server else -1:.0f} ms after the click")
        WebDriverWait(editor, 5).until(lambda d: row_value(d, "new-checkout") == "true")

        print("A typed value, refused and then saved:")
        editor.get(first.url + "/admin/flags/rate-limit")
        field = editor.find_element(By.ID, "value-input")
        field.clear()
        field.send_keys("maybe")
        editor.find_element(By.ID, "save-value").click()
        error = text_after_submit(editor, "error")
        check("maybe" in error and "Nothing was changed" in error, f"'maybe' for an Int is refused: {error}")
        check(text(editor, "flag-value") == "10", "and rate-limit still reads 10")
        editor.save_screenshot(f"{screenshots}/admin-edit.png")
        field = editor.find_element(By.ID, "value-input")
        field.clear()
        field.send_keys("250")
        editor.find_element(By.ID, "save-value").click()
        check("Saved" in text_after_submit(editor, "notice"), "the page says the value is saved")
        check(text(editor, "flag-value") == "250", f"and shows 250: {text(editor, 'flag-value')}")

        print("A rule, refused and then saved:")
        rule = editor.find_element(By.ID, "rule-input")
        rule.clear()
        rule.send_keys('{"frobnicate": [1]}')
        editor.find_element(By.ID, "save-rule").click()
        check("not valid" in text_after_submit(editor, "error"), "a rule with an unknown operator is refused")
        rule = editor.find_element(By.ID, "rule-input")
        rule.clear()
        rule.send_keys('{"if": [{"==": [{"var": "plan"}, "enterprise"]}, "value", null]}')
        editor.find_element(By.ID, "save-rule").click()
        check("rule" in text_after_submit(editor, "notice"), "the page says the rule is saved")
        check(text(editor, "flag-targeting") == "yes", "a rule that parses is saved")
        history = history_rows(editor)
        check(any("alice" in row and "definition" in row for row in history), "the history names alice for the rule")
        check(any("alice" in row and "250" in row for row in history), "and for the value, with old and new")
        editor.execute_script("document.getElementById('live-history').previousElementSibling.scrollIntoView()")
        editor.save_screenshot(f"{screenshots}/admin-history.png")

        print("An operator's psql UPDATE reaches both open pages:")
        editor.get(first.url + "/admin/flags/banner")
        wait_live(editor)
        viewer.get(second.url + "/admin/")
        wait_live(viewer)
        psql(f"INSERT INTO stowage.entries (namespace, key, value) VALUES ('{NAMESPACE}', 'banner', '\"Closed for maintenance\"')"
             " ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = false")
        WebDriverWait(editor, 5).until(lambda d: text(d, "flag-value") == "Closed for maintenance")
        WebDriverWait(viewer, 5).until(lambda d: row_value(d, "banner") == "Closed for maintenance")
        check(True, "both pages show the operator's value without a reload")
        WebDriverWait(editor, 5).until(lambda d: any("application psql" in row for row in history_rows(d)))
        check(True, "the history names psql as where the change came from")

        print("The stowage tool sets a flag for the fleet through the second server:")
        def stowage(*arguments, token=TOOL_TOKEN):
            return subprocess.run([tool, *arguments, "--server", second.url + "/admin"], capture_output=True, text=True,
                                  env=dict(os.environ, STOWAGE_ADMIN_TOKEN=token))
        banner = stowage("flags", "set", "banner", "From the tool")
        check(banner.returncode == 0 and "for the fleet" in banner.stdout, f"stowage flags set --server: {banner.stdout.strip()}{banner.stderr.strip()}")
        WebDriverWait(editor, 5).until(lambda d: text(d, "flag-value") == "From the tool")
        WebDriverWait(viewer, 5).until(lambda d: row_value(d, "banner") == "From the tool")
        check(True, "both open pages show the tool's value without a reload")
        WebDriverWait(editor, 5).until(lambda d: any("ops-tool" in row for row in history_rows(d)))
        check(True, "and the history names the tool's user")
        maybe = stowage("flags", "set", "rate-limit", "maybe")
        check(maybe.returncode == 1 and "maybe" in maybe.stderr and "Nothing was changed" in maybe.stderr, f"'maybe' is refused: {maybe.stderr.strip()}")

        print("A viewer's forged change requests are refused and recorded:")
        statuses = viewer.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const csrf = document.querySelector('input[name=csrf]').value;
            const post = (body) => fetch('/admin/flags/new-checkout/value', {method: 'POST',
                headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body}).then(r => r.status);
            Promise.all([post('value=false&csrf=' + encodeURIComponent(csrf)), post('value=false')]).then(done);
        """)
        check(statuses == [403, 403], f"with his token and without, both refused: {statuses}")
        editor.get(first.url + "/admin/flags/new-checkout")
        check(text(editor, "flag-value") == "true", "new-checkout is still true")
        refusals = [row for row in history_rows(editor) if "Refused" in row and "victor" in row]
        check(len(refusals) == 2, f"both refusals are in the history under victor's name: {refusals}")
        toggles = [row for row in history_rows(editor) if "alice" in row and "value" in row]
        check(len(toggles) == 1 and toggles[0].endswith("none → true"), f"alice's toggle is there, the fleet's first value for it: {toggles}")

        print("The stowage tool reads the history:")
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        flags = stowage("flags", "history", "new-checkout")
        lines = flags.stdout.splitlines()
        check(flags.returncode == 0 and len(lines) == 3, f"stowage flags history new-checkout lists its 3 entries: {flags.stdout}{flags.stderr}")
        check("victor" in lines[0] and "refused:" in lines[0] and "alice" in lines[2] and lines[2].endswith("none → true"),
              "newest first: the refusals, then alice's toggle")
        everything = stowage("flags", "history", "--since", started, "--json")
        check(everything.returncode == 0 and '"key":"rate-limit"' in everything.stdout and '"author":"alice"' in everything.stdout,
              "the namespace's entries since a time, as JSON")
        settings = stowage("history", "--limit", "10")
        secret = [line for line in settings.stdout.splitlines() if "database-password" in line]
        region = [line for line in settings.stdout.splitlines() if " region " in line]
        check(settings.returncode == 0 and len(secret) == 1 and secret[0].endswith("(secret)") and region and region[0].endswith('none → "eu-west-1"'),
              f"the settings' history, the secret one without its value: {settings.stdout}")
        check("hunter2" not in settings.stdout + stowage("history", "--json").stdout, "the secret's value is in neither")
        refused = stowage("flags", "history", token="wrong")
        check(refused.returncode == 1 and "401" in refused.stderr, f"a wrong token is refused: {refused.stderr.strip()}")

        for name in ["admin-list", "admin-edit", "admin-history"]:
            with open(f"{screenshots}/{name}.png", "rb") as image:
                data = image.read()
            check(data.startswith(b"\x89PNG") and len(data) > 10_000, f"{name}.png was written ({len(data)} bytes)")
    finally:
        for driver in [editor, viewer]:
            if driver:
                driver.quit()
        first.stop()
        second.stop()
    finish()


if __name__ == "__main__":
    main()
