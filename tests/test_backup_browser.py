"""Backup and restore from the referee's phone, in Russian (issue 53, item 4): the backup downloads
as one file, and that file, chosen and restored, is checked and answered in the page's language."""

import shutil
import tarfile

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.conftest import ROOT
from tests.test_dashboard_browser import phone_page, station_process

TOKEN = "backup-browser-token"
pytestmark = pytest.mark.browser


def test_a_backup_downloads_and_restores_from_the_settings_page(tmp_path):
    data = tmp_path / "data"
    (data / "journals").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "data" / "sessions" / "demo.jsonl", data / "journals" / "played.jsonl")
    command = ["serve", "--data", str(data), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url, sync_playwright() as pw:
        page, errors = phone_page(pw, url)
        page.goto(url + f"/settings?token={TOKEN}")
        with page.expect_download() as download:
            page.locator("#backup-download").click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        assert saved.name.startswith("station-backup-") and saved.name.endswith(".tar.gz")
        with tarfile.open(saved) as archive:
            assert "data/journals/played.jsonl" in archive.getnames() and "MANIFEST.json" in archive.getnames()
        page.wait_for_timeout(500)  # a referee finds the file on the phone
        page.locator("#restore").click()
        expect(page.locator("#restore-file ~ .field-error, .field-error").first).to_have_text(
            "сначала выберите файл резервной копии"
        )
        page.locator("#restore-file").set_input_files(str(saved))
        page.locator("#restore").click()
        expect(page.locator("#settings-done")).to_have_text(
            "Восстановлено: записано файлов — 0, уже были — 1, оставлены как есть — 0."
        )
        broken = tmp_path / "broken.tar.gz"
        broken.write_bytes(saved.read_bytes()[: len(saved.read_bytes()) // 2])
        page.locator("#restore-file").set_input_files(str(broken))
        page.locator("#restore").click()
        expect(page.locator("#settings-error")).to_contain_text("архив обрезан или повреждён")
        assert errors == []
        page.context.browser.close()
