"""Settings read one way: *_ENABLED names, the defaults of bitextcrawl.defaults, profiles."""

from __future__ import annotations

from scrapy.settings import Settings

from bitextcrawl import config
from bitextcrawl.defaults import DEFAULTS


def project_settings(**values) -> Settings:
    settings = Settings()
    settings.setmodule("bitextcrawl.settings.local")
    settings.setdict(values, priority="cmdline")
    return settings


def test_every_on_off_setting_is_named_enabled():
    flags = [name for name, value in DEFAULTS.items() if isinstance(value, bool)]
    assert flags and all(name.endswith("_ENABLED") for name in flags)


def test_getbool_reads_the_setting_else_the_default():
    settings = project_settings(BITEXT_DEEP_RECOVERY_ENABLED="False")
    assert config.getbool(settings, "BITEXT_DEEP_RECOVERY_ENABLED") is False
    assert config.getbool(settings, "BITEXT_PARALLEL_LINKS_ENABLED") is True
    # Settings without bitextcrawl's profile: the default of bitextcrawl.defaults.
    assert config.getbool(Settings(), "BITEXT_RESOLVE_LOCALHOST_ENABLED") is True
    assert config.getbool(Settings(), "BITEXT_FOCUS_YIELD_ENABLED") is False


def test_distributed_profile_holds_queued_links_and_switches_off_promote():
    """Held links are shared through Redis (focus/sharing.py): holding stays on; a promoted
    copy could still be fetched twice by two workers: promoting is off."""
    settings = Settings()
    settings.setmodule("bitextcrawl.settings.distributed")
    assert config.getbool(settings, "BITEXT_FOCUS_HOLD_QUEUED_ENABLED") is True
    assert settings.getbool("BITEXT_FOCUS_PROMOTE_ENABLED") is False
    assert config.getbool(settings, "BITEXT_FOCUS_PROMOTE_ENABLED") is False


def test_checkout_settings_modules_are_the_package_profiles():
    for profile in ("base", "local", "distributed", "scrapyd"):
        checkout, package = Settings(), Settings()
        checkout.setmodule(f"settings.{profile}")
        package.setmodule(f"bitextcrawl.settings.{profile}")
        assert checkout.copy_to_dict() == package.copy_to_dict(), profile


def test_pattern_db_path():
    assert config.pattern_db_path(Settings()) == "output/patterns-db.json"
    assert config.pattern_db_path(Settings(), "out") == "out/patterns-db.json"
    assert config.pattern_db_path(Settings({"BITEXT_PATTERN_DB": "x.json"}), "out") == "x.json"
