"""Profile for jobs run by Scrapyd: the local profile, with no way into a running crawl.

``setup.py`` names this module as the egg's settings (``scrapyd-deploy`` builds the egg),
so every job Scrapyd runs uses it. A daemon runs jobs for whoever can reach its API; the
two Scrapy extensions that let a local user drive a live crawler are off:

- the telnet console (``scrapy.extensions.telnet.TelnetConsole``);
- Scrapy 2.19's remote control (``scrapy.extensions.remote_control.RemoteControl``): an
  HTTP server on a random loopback port that runs Python code sent to it, its token in a
  job file under the user's profile directory.
"""

from bitextcrawl.settings import local as _local
from bitextcrawl.settings.local import *  # noqa: F401,F403

TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
EXTENSIONS = {
    **_local.EXTENSIONS,
    "scrapy.extensions.telnet.TelnetConsole": None,
    "scrapy.extensions.remote_control.RemoteControl": None,
}
