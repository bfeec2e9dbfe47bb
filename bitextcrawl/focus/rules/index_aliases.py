"""Rule: a directory index is downloaded under one URL. ``dir/index.html`` when ``dir/``
went out (or the reverse) is dropped: one page on nearly every server; and
``dir/index.html`` where links name it ``dir/`` too is fetched as ``dir/``, the spelling
its counterpart's URL pairs with whichever of them a page links. A redirect from one
spelling to the other is let through. (In a distributed crawl the middleware claims the
index for this worker last, once every rule let the request go.)"""

from __future__ import annotations

from bitextcrawl.focus.rules.base import Discard, FocusRule, Rewrite
from bitextcrawl.pairing.recovery import index_aliases


def request_aliases(request) -> list[str]:
    """The other spellings of the directory index ``request`` asks for (none for a
    redirect's request: the site chose the spelling)."""
    return [] if request.meta.get("redirect_urls") else index_aliases(request.url)


class IndexAliases(FocusRule):
    name = "index_aliases"

    def request(self, request, focus):
        queue, url = focus.queue, request.url
        aliases = request_aliases(request)
        if any(alias in queue.requested for alias in aliases):
            return Discard("index_alias_dropped",
                           "the same directory index went out under its other URL")
        if aliases and not url.endswith("/") and queue.scheduled_anywhere(aliases[0]):
            return Rewrite(request.replace(url=aliases[0], dont_filter=True),
                           "bitext/focus/index_alias_rewritten")
        return None
