"""Redirect rewrites learned from the redirects a site answers.

A documentation site that writes its language switches as relative links
(``/manual/en/x.html`` links ``./fr/x.html``) answers every one of them with a 301 to
``/manual/fr/x.html``. Once the site has answered a few URLs of one shape with one
rewrite, the crawler can rewrite new links of that shape itself: the 301 is saved, and
where the target was already fetched the dupefilter saves the whole request.

A rule is a path *template*: each target segment is a source segment copied by position
or a literal (``/manual/en/fr/x.html -> /manual/fr/x.html`` is ``[$0, $2, $3]``; where a value
repeats, every template that fits is kept). Its
*shape* is the number of path segments, the set of values seen at each position but the
last (``{manual}, {en, fr}, {fr, en}``) and the last segment's extension: a URL matches
only with values the site has already redirected that way — ``/manual/en/mod/core.html``
does not match a rule learned from ``/manual/en/fr/…``. The query is kept as it is.

A rule is used once ``min_seen`` distinct URLs followed it, and dropped for good when the
site contradicts it: a URL of its shape answered without that redirect, or a rewritten
URL that fails.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

Template = tuple  # of int (a source segment by position) or str (a literal segment)


def _split(url: str) -> tuple[str, str, list[str], str] | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.path.startswith("/"):
        return None
    return parts.scheme, parts.netloc, parts.path.split("/")[1:], parts.query


def _extension(segment: str) -> str:
    return posixpath.splitext(segment)[1].lower()


def templates_of(source: list[str], target: list[str], limit: int = 8) -> list[Template]:
    """Every way of writing ``target`` from ``source``: each target segment a copy of a
    source segment equal to it (any of them: ``/en/en/x`` -> ``/en/x`` copies either) or,
    where none is, a literal."""
    out: list[tuple] = [()]
    for seg in target:
        places = [i for i, s in enumerate(source) if s == seg] or [seg]
        out = [t + (p,) for t in out for p in places][:limit]
    return out


@dataclass
class _Rule:
    template: Template
    values: list[set] = field(default_factory=list)   # per position but the last
    extension: str = ""
    sources: set = field(default_factory=set)
    dead: bool = False

    def matches(self, segments: list[str]) -> bool:
        return (len(segments) == len(self.values) + 1
                and _extension(segments[-1]) == self.extension
                and all(s in v for s, v in zip(segments, self.values)))


class RedirectRules:
    """Learns redirect rewrites per site; :meth:`rewrite` answers for a new URL."""

    def __init__(self, min_seen: int = 3):
        self.min_seen = max(1, min_seen)
        # (scheme, netloc, number of segments, extension, template) -> rule
        self.rules_: dict[tuple, _Rule] = {}

    def _key(self, scheme, netloc, segments, template) -> tuple:
        return scheme, netloc, len(segments), _extension(segments[-1]), template

    def observe(self, source: str, target: str) -> None:
        """The site answered ``source`` with a redirect to ``target``."""
        a, b = _split(source), _split(target)
        if a is None or b is None or a[:2] != b[:2] or a[3] != b[3] or a[2] == b[2]:
            return  # another host, a changed query, or no path change: not a path rewrite
        scheme, netloc, src, _ = a
        templates = templates_of(src, b[2])
        for template in templates:
            key = self._key(scheme, netloc, src, template)
            rule = self.rules_.get(key)
            if rule is None:
                rule = self.rules_[key] = _Rule(template, [set() for _ in src[:-1]],
                                                _extension(src[-1]))
            for values, seg in zip(rule.values, src):
                values.add(seg)
            rule.sources.add(source)
        # A rule of the same shape that would have rewritten this URL otherwise is wrong.
        for other in self._matching(scheme, netloc, src):
            if other.template not in templates:
                other.dead = True

    def contradict(self, url: str) -> bool:
        """``url`` was answered without the redirect its rule predicts (or, rewritten,
        failed): the rule is dropped. True if a live rule matched."""
        parts = _split(url)
        if parts is None:
            return False
        hit = False
        for rule in self._matching(parts[0], parts[1], parts[2]):
            rule.dead, hit = True, True
        return hit

    def _matching(self, scheme, netloc, segments) -> list[_Rule]:
        ext = _extension(segments[-1]) if segments else ""
        return [rule for (s, n, k, e, _), rule in self.rules_.items()
                if (s, n, k, e) == (scheme, netloc, len(segments), ext)
                and not rule.dead and rule.matches(segments)]

    def rewrite(self, url: str) -> str | None:
        """The URL the site would redirect ``url`` to, if one learned rule says so."""
        if not self.rules_:   # (most sites: asked for every link)
            return None
        parts = _split(url)
        if parts is None or not parts[2]:
            return None
        scheme, netloc, segments, query = parts
        paths = {"/" + "/".join(segments[t] if isinstance(t, int) else t for t in r.template)
                 for r in self._matching(scheme, netloc, segments)
                 if len(r.sources) >= self.min_seen}
        if len(paths) != 1:
            return None
        new = urlunsplit((scheme, netloc, paths.pop(), query, urlsplit(url).fragment))
        return new if new != url else None

    def learning(self, url: str) -> _Rule | None:
        """The rule of ``url``'s shape still being learned (followed by fewer than
        ``min_seen`` URLs), where no rule of its shape is in use yet; else None."""
        parts = _split(url)
        if parts is None or not parts[2]:
            return None
        rules = self._matching(parts[0], parts[1], parts[2])
        if not rules or any(len(r.sources) >= self.min_seen for r in rules):
            return None
        # (the first of the most followed: templates mix positions and literals, which
        # do not compare)
        return max(rules, key=lambda r: len(r.sources))

    def near(self, url: str) -> tuple | None:
        """Where ``url`` is of a rule in use but for a segment not seen at its position,
        one seen at another position that varies (``/manual/en/ja/x.html`` after
        ``/manual/ja/{en,ja}/…``: the language codes of relative switches), the rule and
        those new values: the next redirect of the rule may well be this URL's, and one
        URL answered tells. Else None."""
        if not self.rules_:
            return None
        parts = _split(url)
        if parts is None or not parts[2]:
            return None
        scheme, netloc, segments, _ = parts
        if self._matching(scheme, netloc, segments):
            return None
        ext = _extension(segments[-1])
        for key, rule in self.rules_.items():
            if key[:4] != (scheme, netloc, len(segments), ext) or rule.dead \
                    or len(rule.sources) < self.min_seen:
                continue
            varying = set().union(*(v for v in rule.values if len(v) > 1))
            new = tuple((i, seg) for i, (seg, values) in enumerate(zip(segments, rule.values))
                        if seg not in values)
            if new and all(seg in varying for _, seg in new):
                return key, new
        return None

    def live_rules(self) -> int:
        return sum(1 for r in self.rules_.values()
                   if not r.dead and len(r.sources) >= self.min_seen)
