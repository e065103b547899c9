"""What an upload declares: size, real MIME from the bytes, SHA-256, name."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest

from gensvc._files import MAX_UPLOAD_SIZE, inspect_file

from .test_integration import png

WAV = b"RIFF" + (36).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little") + bytes(16) + b"data" + bytes(4)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(20)


@pytest.mark.parametrize(
    ("data", "name", "mime"),
    [
        (png(), "a.bin", "image/png"),  # the bytes decide, not the name
        (JPEG, "photo.png", "image/jpeg"),
        (WAV, "s.wav", "audio/wav"),
        (b'{"a": 1}', "d.json", "application/json"),
        (b'{"a": 1}', "d.txt", "text/plain"),
        ("naïve text".encode(), "n", "text/plain"),
    ],
)
def test_the_real_mime_comes_from_the_bytes(data: bytes, name: str, mime: str) -> None:
    assert inspect_file(data, name=name).mime == mime


def test_a_path_gives_size_checksum_and_name(tmp_path: Path) -> None:
    f = tmp_path / "pic.png"
    f.write_bytes(png(9, 9))
    info = inspect_file(f)
    assert (info.name, info.size, info.checksum) == ("pic.png", f.stat().st_size, hashlib.sha256(f.read_bytes()).hexdigest())
    with info.reopen() as r:
        assert r.read() == f.read_bytes()


def test_a_file_object_is_read_from_its_position_and_left_open() -> None:
    f = io.BytesIO(b"skip" + b"payload")
    f.seek(4)
    info = inspect_file(f, name="p.txt")
    assert info.size == 7 and info.checksum == hashlib.sha256(b"payload").hexdigest()
    chunks = []
    progress: list[tuple[int, int]] = []
    for c in info.chunks(lambda a, b: progress.append((a, b))):
        chunks.append(c)
    assert b"".join(chunks) == b"payload" and progress == [(0, 7), (7, 7)] and not f.closed


def test_a_file_object_that_cannot_seek_is_read_once() -> None:
    class Pipe(io.RawIOBase):
        def __init__(self) -> None:
            self.left = [b"abc", b"def"]

        def readable(self) -> bool:
            return True

        def readinto(self, b: bytearray) -> int:  # type: ignore[override]
            if not self.left:
                return 0
            d = self.left.pop(0)
            b[: len(d)] = d
            return len(d)

    info = inspect_file(io.BufferedReader(Pipe()), name="x.txt")
    with info.reopen() as r:
        assert r.read() == b"abcdef"
    assert info.size == 6


def test_empty_oversized_and_text_mode_sources_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        inspect_file(b"")
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(MAX_UPLOAD_SIZE + 1)
    with pytest.raises(ValueError, match="64 MiB"):
        inspect_file(big)
    with pytest.raises(TypeError, match="binary"):
        inspect_file(io.StringIO("text"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        inspect_file(42)  # type: ignore[arg-type]


def test_bytes_without_a_name_get_one_from_their_type() -> None:
    assert inspect_file(png()).name == "file.png"
