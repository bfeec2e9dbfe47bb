"""A small client of Scrapyd's JSON API (``daemonstatus.json``, ``schedule.json``,
``listjobs.json``, ``cancel.json``), on the standard library's ``urllib``.

Every failure (connection refused, a timeout, a reply that is not JSON, ``"status":
"error"``) is a :class:`ScrapydError` whose message is one line naming the node.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping


class ScrapydError(Exception):
    """A Scrapyd node did not answer, or refused a call; the message is one line."""


class ScrapydNode:
    """One Scrapyd server, ``http://host:port``, and the project deployed on it."""

    def __init__(self, url: str, project: str = "bitextcrawl", timeout: float = 30.0):
        url = url.strip().rstrip("/")
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not a Scrapyd URL: {url!r} (expected http://host:port)")
        self.url = url
        self.project = project
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"ScrapydNode({self.url!r})"

    def call(self, endpoint: str, data: Iterable[tuple[str, str]] | None = None,
             query: Mapping[str, str] | None = None) -> dict:
        """GET (``data`` None) or POST one endpoint; the decoded JSON reply."""
        address = f"{self.url}/{endpoint}"
        if query:
            address += "?" + urllib.parse.urlencode(query)
        body = urllib.parse.urlencode(list(data)).encode() if data is not None else None
        try:
            with urllib.request.urlopen(address, data=body, timeout=self.timeout) as resp:
                reply = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise ScrapydError(f"Scrapyd {self.url}: {endpoint} answered HTTP {exc.code}") \
                from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise ScrapydError(f"Scrapyd {self.url} does not answer: {reason}") from exc
        except ValueError as exc:
            raise ScrapydError(f"Scrapyd {self.url}: {endpoint} did not answer JSON") from exc
        if not isinstance(reply, dict) or reply.get("status") != "ok":
            message = reply.get("message") if isinstance(reply, dict) else reply
            raise ScrapydError(f"Scrapyd {self.url}: {endpoint} failed: {message}")
        return reply

    def daemonstatus(self) -> dict:
        """``{"pending": n, "running": n, "finished": n, ...}``."""
        return self.call("daemonstatus.json")

    def load(self) -> int:
        """Jobs waiting or running on the node, all projects."""
        status = self.daemonstatus()
        return int(status.get("pending", 0)) + int(status.get("running", 0))

    def schedule(self, spider: str, args: Mapping[str, str], settings: Mapping[str, str],
                 jobid: str) -> str:
        """Schedule a job with the given id; returns the id."""
        data = [("project", self.project), ("spider", spider), ("jobid", jobid)]
        data += [(k, str(v)) for k, v in args.items()]
        data += [("setting", f"{k}={v}") for k, v in settings.items()]
        return self.call("schedule.json", data)["jobid"]

    def jobs(self) -> dict[str, str]:
        """Job id -> ``pending``, ``running`` or ``finished``, for the project."""
        reply = self.call("listjobs.json", query={"project": self.project})
        out = {}
        for state in ("pending", "running", "finished"):
            for job in reply.get(state) or ():
                out[job["id"]] = state
        return out

    def cancel(self, jobid: str) -> None:
        self.call("cancel.json", [("project", self.project), ("job", jobid)])
