"""Write a file so that readers see the old one or the new one, never half of one."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import tempfile


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, newline: str | None = "\n"):
    """A text file handle on a temporary file beside ``path``, moved over it on success.

    A ``.gz`` path is gzip-compressed, with no name or time in the gzip header: the same
    text gives the same bytes (the output contract of ``pairs.jsonl`` and ``bitext.tsv``).
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        if path.endswith(".gz"):
            with os.fdopen(fd, "wb") as raw:
                with io.TextIOWrapper(gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                    mtime=0),
                                      encoding="utf-8", newline=newline) as fh:
                    yield fh
                raw.flush()
                os.fsync(raw.fileno())
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs are for sharing
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
