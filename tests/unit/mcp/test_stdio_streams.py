"""serve's stdio streams: lines read and written on the event loop, fd 0/1 kept off the wire."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from toolcat.executor.mcp_server._stdio import LineWriter, open_lines


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        try:
            os.close(fd)
        except OSError:  # closed by the test
            pass


async def _read_all(fd: int) -> list[str]:
    spare_read, spare_write = os.pipe()  # open_lines takes a pair; this test reads only
    try:
        reader, writer = await open_lines(fd, spare_write)
        try:
            return [line async for line in reader]
        finally:
            await writer.aclose()
    finally:
        os.close(spare_read)
        os.close(spare_write)


async def _writer(fd: int) -> LineWriter:
    spare_read, spare_write = os.pipe()  # open_lines takes a pair; this test writes only
    os.close(spare_write)
    _, writer = await open_lines(spare_read, fd)
    return writer


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b""], []),  # end of file at once
        ([b'{"a": 1}\n'], ['{"a": 1}\n']),
        ([b'{"a"', b": 1}\n{", b'"b": 2}\n'], ['{"a": 1}\n', '{"b": 2}\n']),  # partial lines
        ([b"one\ntwo\nthree\n"], ["one\n", "two\n", "three\n"]),  # several in one read
        ([b"\n\n"], ["\n", "\n"]),  # empty lines are lines (the SDK reports them as bad JSON)
        ([b"caf\xc3", b"\xa9\n"], ["caf\u00e9\n"]),  # a character split between two reads
        ([b"bad \xff\xfe\n"], ["bad \ufffd\ufffd\n"]),  # invalid UTF-8 replaced, as the SDK does
        ([b'{"half": '], ['{"half": ']),  # the client closed mid-message: what came, then EOF
    ],
)
def test_lines_as_the_sdk_reads_them(
    pipe: tuple[int, int], chunks: list[bytes], lines: list[str]
) -> None:
    read, write = pipe

    async def run() -> list[str]:
        async with anyio.create_task_group() as tg:
            got: list[str] = []

            async def reader() -> None:
                got.extend(await _read_all(read))

            tg.start_soon(reader)
            for chunk in chunks:
                os.write(write, chunk)
                await anyio.sleep(0.01)  # each chunk a read of its own
            os.close(write)
        return got

    assert anyio.run(run) == lines


def test_a_line_longer_than_a_read_is_whole(pipe: tuple[int, int]) -> None:
    read, write = pipe
    line = "x" * 300_000 + "\n"

    async def run() -> list[str]:
        async with anyio.create_task_group() as tg:
            got: list[str] = []

            async def reader() -> None:
                got.extend(await _read_all(read))

            tg.start_soon(reader)
            writer = await _writer(write)
            await writer.write(line)
            await writer.aclose()
            os.close(write)
        return got

    assert anyio.run(run) == [line]


def test_a_full_pipe_waits_without_blocking_the_loop(pipe: tuple[int, int]) -> None:
    """A client slow to read: the write waits on the loop while other tasks run."""
    read, write = pipe
    text = "y" * 2_000_000  # far more than a pipe holds
    ticks = 0

    async def run() -> bytes:
        nonlocal ticks
        received = bytearray()
        async with anyio.create_task_group() as tg:

            async def write_it() -> None:
                writer = await _writer(write)
                await writer.write(text)
                await writer.aclose()
                os.close(write)

            async def slow_reader() -> None:
                nonlocal ticks
                while True:
                    await anyio.sleep(0.001)
                    ticks += 1
                    await anyio.wait_readable(read)
                    chunk = os.read(read, 65536)
                    if not chunk:
                        return
                    received.extend(chunk)

            tg.start_soon(write_it)
            tg.start_soon(slow_reader)
        return bytes(received)

    assert anyio.run(run) == text.encode()
    assert ticks > 10  # the reader ran while the writer waited


def test_a_closed_reader_is_a_broken_pipe(pipe: tuple[int, int]) -> None:
    """The client went away: the write fails as the SDK's own stream's does."""
    read, write = pipe
    os.close(read)

    async def run() -> None:
        writer = await _writer(write)
        for _ in range(3):  # asyncio's transport learns of it at the first write, or before
            await writer.write("{}\n")
            await anyio.sleep(0.01)

    with pytest.raises(ConnectionError):  # BrokenPipeError, or the transport's reset
        anyio.run(run)


def test_a_line_over_the_limit_is_dropped_and_the_next_is_read(
    pipe: tuple[int, int], caplog: pytest.LogCaptureFixture
) -> None:
    read, write = pipe
    spare_read, spare_write = os.pipe()

    async def run() -> list[str]:
        reader, writer = await open_lines(read, spare_write, limit=1000)
        os.write(write, b"x" * 5000 + b'\n{"a": 1}\n')
        os.close(write)
        try:
            return [line async for line in reader]
        finally:
            await writer.aclose()

    try:
        lines = anyio.run(run)
    finally:
        os.close(spare_read)
        os.close(spare_write)
    assert lines[-1] == '{"a": 1}\n'  # the next message is read whole
    assert all(len(line) <= 1000 for line in lines)  # nothing over the limit reaches the SDK
    assert "over the line limit was dropped" in caplog.text


SERVE_LIKE = """
import anyio, os, sys
from toolcat.executor.mcp_server._stdio import pipe_streams

async def main():
    async with pipe_streams() as (reader, writer):
        if reader is None:
            print("fallback", flush=True)
            return
        print("stray print", flush=True)
        os.write(1, b"stray write\\n")
        assert os.read(0, 10) == b""  # fd 0 reads the null device meanwhile
        async for line in reader:
            await writer.write("echo " + line)
    assert os.get_blocking(1)  # the pipe's mode is as it was
    print("after", flush=True)  # fd 1 is the wire again

anyio.run(main)
"""


def test_pipes_are_served_and_stray_output_misses_the_wire() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SERVE_LIKE],
        input=b"one\ntwo\n",
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == b"echo one\necho two\nafter\n"
    assert b"stray print\n" in done.stderr
    assert b"stray write\n" in done.stderr


def test_a_regular_file_on_stdin_gets_the_sdk_default(tmp_path: Path) -> None:
    source = tmp_path / "requests.jsonl"
    source.write_bytes(b"one\n")
    with source.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", SERVE_LIKE],
            stdin=stdin,
            capture_output=True,
            timeout=60,
            check=True,
        )
    assert done.stdout == b"fallback\n"


def test_stderr_on_the_same_pipe_as_stdout_gets_the_sdk_default() -> None:
    """``2>&1``: a non-blocking stdout would make stderr's writes fail when the pipe is full."""
    done = subprocess.run(
        [sys.executable, "-c", SERVE_LIKE],
        input=b"one\n",
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=60,
        check=True,
    )
    assert done.stdout == b"fallback\n"
