"""The generated glossary site, for the tests that import it from here: the generator is
``testkit/glossary.py`` (scaffolding that ``bench/`` uses too)."""

from testkit.glossary import TAGS, UI, Glossary, glossary_site  # noqa: F401
