"""Local files for uploads: size, real MIME (from the bytes), SHA-256, and chunked reads
with a progress callback."""

from __future__ import annotations

import hashlib
import io
import mimetypes
import os
from dataclasses import dataclass
from typing import IO, Any, AsyncIterator, Callable, Iterator, Optional, Union

import filetype  # type: ignore[import-untyped]

#: What can be uploaded: a path, the bytes themselves, or a binary file object.
FileSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]
#: ``on_progress(sent_bytes, total_bytes)``; starts again from 0 when a PUT is retried.
ProgressCallback = Callable[[int, int], None]

MAX_UPLOAD_SIZE = 64 * 1024 * 1024
CHUNK_SIZE = 256 * 1024
_SIGNATURE_BYTES = 4100

# filetype's names that the API spells differently.
_MIME_ALIASES = {"audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/x-mpeg": "audio/mpeg", "audio/mp3": "audio/mpeg"}


class _Unclosable(io.RawIOBase):
    """A view of a caller's seekable file from a start offset that leaves it open."""

    def __init__(self, f: IO[bytes], start: int) -> None:
        super().__init__()
        self._f = f
        f.seek(start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._f.read(len(buffer))
        if not isinstance(data, bytes):
            raise TypeError("the file object must be opened in binary mode")
        buffer[: len(data)] = data
        return len(data)


@dataclass(frozen=True)
class LocalFile:
    """A file ready to upload: everything prepare needs, and a way to read it again."""

    name: str
    mime: str
    size: int
    checksum: str
    reopen: Callable[[], IO[bytes]]

    def chunks(self, on_progress: Optional[ProgressCallback]) -> Iterator[bytes]:
        sent = 0
        if on_progress:
            on_progress(0, self.size)
        with self.reopen() as f:
            while True:
                chunk = f.read(CHUNK_SIZE)
                if not chunk:
                    break
                sent += len(chunk)
                yield chunk
                if on_progress:
                    on_progress(sent, self.size)

    async def achunks(self, on_progress: Optional[ProgressCallback]) -> AsyncIterator[bytes]:
        import anyio.to_thread

        sent = 0
        if on_progress:
            on_progress(0, self.size)
        f = self.reopen()
        try:
            while True:
                chunk = await anyio.to_thread.run_sync(f.read, CHUNK_SIZE)
                if not chunk:
                    break
                sent += len(chunk)
                yield chunk
                if on_progress:
                    on_progress(sent, self.size)
        finally:
            f.close()


def detect_mime(head: bytes, name: str) -> str:
    """The real MIME type from the file's signature; files without one are text
    (``application/json`` when the name says so, ``text/plain`` otherwise)."""
    kind = filetype.guess(head)
    if kind is not None:
        found = str(kind.mime)
        return _MIME_ALIASES.get(found, found)
    guessed, _ = mimetypes.guess_type(name)
    return "application/json" if guessed == "application/json" else "text/plain"


def inspect_file(source: FileSource, *, name: Optional[str] = None, mime: Optional[str] = None) -> LocalFile:
    """Reads the source once: size, SHA-256 and the signature sample."""
    reopen: Callable[[], IO[bytes]]
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        default_name = os.path.basename(path)

        def reopen() -> IO[bytes]:
            return open(path, "rb")

    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        default_name = ""

        def reopen() -> IO[bytes]:
            return io.BytesIO(data)

    elif hasattr(source, "read"):
        f = source
        default_name = os.path.basename(str(getattr(f, "name", "") or "")) if isinstance(getattr(f, "name", None), str) else ""
        seekable = bool(getattr(f, "seekable", lambda: False)())
        if seekable:
            start = f.tell()

            def reopen() -> IO[bytes]:
                return io.BufferedReader(_Unclosable(f, start), CHUNK_SIZE)

        else:
            data = f.read()
            if not isinstance(data, bytes):
                raise TypeError("the file object must be opened in binary mode")

            def reopen() -> IO[bytes]:
                return io.BytesIO(data)

    else:
        raise TypeError(f"cannot upload a {type(source).__name__}: pass a path, bytes or a binary file object")

    digest = hashlib.sha256()
    size = 0
    head = b""
    with reopen() as r:
        while True:
            chunk = r.read(CHUNK_SIZE)
            if not chunk:
                break
            if not isinstance(chunk, bytes):
                raise TypeError("the file object must be opened in binary mode")
            if len(head) < _SIGNATURE_BYTES:
                head += chunk[: _SIGNATURE_BYTES - len(head)]
            digest.update(chunk)
            size += len(chunk)
            if size > MAX_UPLOAD_SIZE:
                raise ValueError(f"the file is over {MAX_UPLOAD_SIZE} bytes (64 MiB), the largest upload")
    if size == 0:
        raise ValueError("the file is empty (an upload needs at least 1 byte)")
    final_mime = mime or detect_mime(head, name or default_name)
    final_name = name or default_name or "file" + (mimetypes.guess_extension(final_mime) or "")
    return LocalFile(name=final_name, mime=final_mime, size=size, checksum=digest.hexdigest(), reopen=reopen)
