"""The HTML scoreboard in a real browser: the distribution's Chromium (headless, no network,
a fresh profile), driven by selenium. The page loads without a script error, its filters narrow
the rows, a glance cell lists its results, and a backend's hostile message stays text.

`make build` (and `make test`) install Chromium and its driver with apt-get where missing.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._reports.html_report import html_report
from onnx_seq_tests._run.verifier import Result


@dataclass(frozen=True)
class Raw(Result):
    raw_outcome: str = ""


HOSTILE = "<img src=x onerror=\"document.title='owned'\"> </script><b>bold</b>"


def _result(backend, name, outcome, operator, message="", raw="", form="sequence_optional"):
    return Raw(f"{form}/test_{name}", f"test_{name}", backend, outcome, message,
               tuple(operator.split("+")), "float", 0.1, 18, "", raw,
               SuiteForm.of_case(f"{form}/test_{name}"))


RESULTS = [
    _result("alpha", "sequence_empty_float", "fail", "SequenceEmpty", "expected length 0"),
    _result("alpha", "sequence_empty_float__len0", "fail", "Constant+SequenceEmpty+"
            "SequenceLength", "expected length 0", form="sequence_optional_tensor_io"),
    _result("alpha", "sequence_at_neg", "pass", "SequenceAt"),
    _result("alpha", "split_strings", "refused", "SplitToSequence", HOSTILE),
    _result("alpha", "optional_x", "xfail", "Optional", "crashed", raw="crash"),
    _result("beta", "sequence_empty_float", "pass", "SequenceEmpty"),
    _result("beta", "sequence_empty_float__len0", "pass", "Constant+SequenceEmpty+"
            "SequenceLength", form="sequence_optional_tensor_io"),
    _result("beta", "sequence_at_neg", "error", "SequenceAt", "index out of range"),
    _result("beta", "split_strings", "timeout", "SplitToSequence", "took longer than 1 s"),
    _result("beta", "optional_x", "pass", "Optional"),
]

#: What the variant's CaseRef says it is about (the manifest's original's operators).
ABOUT = {"test_sequence_empty_float__len0": ("SequenceEmpty",)}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, ("Chromium and chromedriver are missing: `make build` installs "
                                 "them (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--no-first-run", "--window-size=1400,1000",
                     f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(argument)
    session = webdriver.Chrome(service=Service(driver), options=options)
    yield session
    session.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "scoreboard.html"
    path.write_text(html_report(RESULTS, ["alpha", "beta"], "mini", "cmd", about=ABOUT,
                                described={"alpha": "alpha 1.0", "beta": "beta 2.0"}),
                    encoding="utf-8")
    return path


def _rows(browser) -> list[tuple[str, str, str]]:
    """(outcome label, backend, case) of each row shown."""
    rows = browser.find_elements(By.CSS_SELECTOR, "#results tbody tr")
    cells = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    return [(texts[0], texts[1], texts[3]) for texts in cells]


def test_the_filters_narrow_the_rows(browser, page):
    browser.get(page.as_uri())
    assert browser.title.startswith("Conformance")
    shown = _rows(browser)
    assert len(shown) == 6  # every result but the passes
    assert browser.find_element(By.ID, "count").text.startswith("6 result(s)")
    Select(browser.find_element(By.ID, "f-backend")).select_by_value("beta")
    assert sorted(row[0] for row in _rows(browser)) == ["error", "timeout"]
    assert [s.is_displayed() for s in browser.find_elements(By.CSS_SELECTOR,
                                                             ".finding-group")] == [False, True]
    browser.find_element(By.ID, "f-bugs").click()
    assert [row[0] for row in _rows(browser)] == ["timeout"]
    browser.find_element(By.ID, "f-reset").click()
    browser.find_element(By.ID, "f-bugs").click()
    assert sorted(row[0] for row in _rows(browser)) == ["fail", "fail", "timeout",
                                                        "xfail (crash)"]
    browser.find_element(By.ID, "f-reset").click()
    operators = Select(browser.find_element(By.ID, "f-operator"))
    # a variant counts under the operator of its case only, not its wrapping nodes
    assert [o.text for o in operators.options] == [
        "all", "Optional", "SequenceAt", "SequenceEmpty", "SplitToSequence"]
    Select(browser.find_element(By.ID, "f-operator")).select_by_value("SequenceEmpty")
    Select(browser.find_element(By.ID, "f-form")).select_by_value("tensor-boundary")
    assert _rows(browser) == [("fail", "alpha", "sequence_optional_tensor_io/"
                                                "test_sequence_empty_float__len0")]


def test_a_glance_cell_lists_its_results(browser, page):
    browser.get(page.as_uri())
    cell = browser.find_element(By.CSS_SELECTOR, '.glance td[data-backend="beta"]'
                                                 '[data-operator="SequenceAt"]')
    assert cell.text.splitlines() == ["0%", "0/1"]
    cell.click()
    assert _rows(browser) == [("error", "beta", "sequence_optional/test_sequence_at_neg")]


def test_a_hostile_message_stays_text(browser, page):
    browser.get(page.as_uri())
    Select(browser.find_element(By.ID, "f-outcome")).select_by_value("refused")
    message = browser.find_elements(By.CSS_SELECTOR, "#results tbody td")[-1]
    assert message.text == HOSTILE
    assert browser.find_elements(By.CSS_SELECTOR, "#results img, #results b") == []
    assert browser.title != "owned"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
