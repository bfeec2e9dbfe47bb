"""Profile for jobs run by Scrapyd: the local profile without remote control."""

from settings.local import *  # noqa: F401,F403

# The telnet console lets anyone on the host drive the crawler: off under a daemon.
TELNETCONSOLE_ENABLED = False
