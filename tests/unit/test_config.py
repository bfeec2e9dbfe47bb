"""Settings read one way: *_ENABLED names, the old names with a deprecation warning."""

from __future__ import annotations

import pytest
from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.settings import Settings

from bitextcrawl import config
from bitextcrawl.defaults import DEFAULTS


def project_settings(**values) -> Settings:
    settings = Settings()
    settings.setmodule("settings.local")
    settings.setdict(values, priority="cmdline")
    return settings


def test_every_on_off_setting_is_named_enabled():
    flags = [name for name, value in DEFAULTS.items() if isinstance(value, bool)]
    assert flags and all(name.endswith("_ENABLED") for name in flags)
    assert set(config.RENAMED_SETTINGS.values()) <= set(DEFAULTS)
    assert not set(config.RENAMED_SETTINGS) & set(DEFAULTS)


def test_new_name_read_without_warning(recwarn):
    settings = project_settings(BITEXT_DEEP_RECOVERY_ENABLED="False")
    assert config.getbool(settings, "BITEXT_DEEP_RECOVERY_ENABLED") is False
    assert config.getbool(settings, "BITEXT_PARALLEL_LINKS_ENABLED") is True
    assert not [w for w in recwarn if issubclass(w.category, ScrapyDeprecationWarning)]


def test_old_name_still_read_with_a_warning():
    settings = project_settings(BITEXT_DEEP_RECOVERY="False")
    with pytest.warns(ScrapyDeprecationWarning, match="BITEXT_DEEP_RECOVERY_ENABLED"):
        assert config.getbool(settings, "BITEXT_DEEP_RECOVERY_ENABLED") is False


def test_old_name_in_a_profile_module_wins_over_the_imported_default():
    settings = project_settings()
    settings.set("BITEXT_FOCUS_PROMOTE", False, priority="project")
    with pytest.warns(ScrapyDeprecationWarning):
        assert config.getbool(settings, "BITEXT_FOCUS_PROMOTE_ENABLED") is False


def test_addon_writes_the_new_name_once():
    settings = project_settings(BITEXT_PARALLEL_LINKS="False")
    with pytest.warns(ScrapyDeprecationWarning):
        config.RenamedSettings().update_settings(settings)
    assert settings.getbool("BITEXT_PARALLEL_LINKS_ENABLED") is False
    assert settings.getbool("BITEXT_FOCUS_ONE_WAY_ENABLED") is True


def test_distributed_profile_switches_off_hold_and_promote():
    settings = Settings()
    settings.setmodule("settings.distributed")
    config.resolve_renamed_settings(settings)
    for name in ("BITEXT_FOCUS_HOLD_QUEUED_ENABLED", "BITEXT_FOCUS_PROMOTE_ENABLED"):
        assert settings.getbool(name) is False
        assert config.getbool(settings, name) is False


def test_pattern_db_path():
    assert config.pattern_db_path(Settings()) == "output/patterns-db.json"
    assert config.pattern_db_path(Settings(), "out") == "out/patterns-db.json"
    assert config.pattern_db_path(Settings({"BITEXT_PATTERN_DB": "x.json"}), "out") == "x.json"
