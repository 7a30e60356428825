"""Text I/O at the edges: strict UTF-8 reading with line numbers, gzip, atomic writes, and '-' for
standard input and output (read once; written whole, on success)."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import sys
import tempfile
import zlib
from pathlib import Path
from typing import IO, Iterator, Sequence

from cad.core.errors import CadError


def is_uint(text: str) -> bool:
    """An unsigned decimal integer in ASCII digits (str.isdigit also takes '²' and '٣', which
    int() refuses or reads as another script's digit; Moses's readers take ASCII only)."""
    return text.isascii() and text.isdigit()


STDIO = "-"

# the sys.stdin object once a reader has taken it: standard input can be read only once
_stdin_taken: object | None = None


def is_stdio(path: str | os.PathLike | None) -> bool:
    """Whether `path` is '-', the Unix name of standard input (to read) or standard output (to write)."""
    return path is not None and str(path) == STDIO


def _open_binary(path: str | os.PathLike) -> IO[bytes]:
    global _stdin_taken
    p = str(path)
    if p == STDIO:      # Unix convention: standard input (left open for the caller)
        if _stdin_taken is sys.stdin:
            raise CadError("standard input was already read: give a file instead (this input is read more "
                           "than once, or another input is '-' too)", p)
        _stdin_taken = sys.stdin
        raw = getattr(sys.stdin, "buffer", None)
        if raw is None:     # a text stream with no bytes underneath (io.StringIO)
            raw = io.BytesIO(sys.stdin.read().encode("utf-8"))
        return contextlib.nullcontext(raw)
    if not os.path.exists(p):
        raise CadError("file not found", p)
    if os.path.isdir(p):
        raise CadError("is a directory, expected a file", p)
    if p.endswith(".gz"):
        return gzip.open(p, "rb")
    return open(p, "rb")


def read_lines(path: str | os.PathLike) -> Iterator[str]:
    """Yield the lines of a UTF-8 text file (plain or .gz) without their newline.

    Invalid UTF-8 raises a CadError naming the file and the 1-based line.
    """
    p = str(path)
    with _open_binary(p) as fh:
        lineno = 0
        try:
            for raw in fh:
                lineno += 1
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CadError(
                        f"invalid UTF-8 at byte {exc.start} of the line", p, lineno
                    ) from None
                yield text.rstrip("\n").rstrip("\r")
        except (OSError, EOFError, zlib.error) as exc:
            if isinstance(exc, CadError):
                raise
            raise CadError(f"cannot read: {exc}", p, lineno + 1) from None


def read_line_chunks(path: str | os.PathLike, size: int = 1 << 20) -> Iterator[bytes]:
    """The bytes of a UTF-8 text file (plain or .gz) in chunks of whole lines of about `size`
    bytes, each checked as UTF-8: what read_lines reads, for a reader that splits the lines itself
    (the last line may lack its newline). Invalid UTF-8 raises the CadError read_lines raises."""
    p = str(path)
    with _open_binary(p) as fh:
        lineno = 0
        try:
            while True:
                lines = fh.readlines(size)
                if not lines:
                    return
                chunk = b"".join(lines)
                try:
                    chunk.decode("utf-8")
                except UnicodeDecodeError:
                    for k, raw in enumerate(lines, lineno + 1):
                        try:
                            raw.decode("utf-8")
                        except UnicodeDecodeError as exc:
                            raise CadError(f"invalid UTF-8 at byte {exc.start} of the line", p, k) from None
                lineno += len(lines)
                yield chunk
        except (OSError, EOFError, zlib.error) as exc:
            if isinstance(exc, CadError):
                raise
            raise CadError(f"cannot read: {exc}", p, lineno + 1) from None


def count_lines(path: str | os.PathLike) -> int:
    if is_stdio(path):
        raise CadError("this command reads its input twice: give a file, not standard input", "-")
    n = 0
    with _open_binary(path) as fh:
        try:
            for _ in fh:
                n += 1
        except (OSError, EOFError, zlib.error) as exc:
            raise CadError(f"cannot read: {exc}", str(path), n + 1) from None
    return n


def read_parallel(paths: Sequence[str | os.PathLike]) -> Iterator[tuple[int, list[str]]]:
    """Yield (1-based line number, [line of each file]) and fail if the files differ in length."""
    iters = [read_lines(p) for p in paths]
    lineno = 0
    while True:
        row = []
        ended = []
        for p, it in zip(paths, iters):
            try:
                row.append(next(it))
            except StopIteration:
                ended.append(str(p))
        if ended:
            if len(ended) != len(paths):
                longer = [str(p) for p in paths if str(p) not in ended]
                raise CadError(
                    f"has {lineno} lines but {', '.join(longer)} has more: "
                    "parallel files must have the same number of lines",
                    ended[0],
                    lineno + 1,
                )
            return
        lineno += 1
        yield lineno, row


def check_output_path(path: str | os.PathLike | None) -> None:
    """Refuse, before any work, an output that cannot be written: a directory, or a name under
    something that is not a directory. Missing directories are fine (they are created)."""
    if path is None or is_stdio(path):
        return
    p = Path(path)
    if p.is_dir():
        raise CadError("is a directory: give a file name", str(p))
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise CadError(f"{parent} is not a directory", str(p))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CadError(f"cannot write in {parent}", str(p))


def _write_in_place(target: Path, binary: bool, compress: bool):
    with open(target, "wb") as raw:
        if compress:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz:
                yield gz if binary else io.TextIOWrapper(gz, encoding="utf-8", newline="\n", write_through=True)
        else:
            yield raw if binary else io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=True)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, binary: bool = False, compress: bool | None = None):
    """Write to a temporary file beside `path` and rename it into place only on success.

    '-' is standard output, written only on success too. Gzip compression is used when `compress`
    is true, or when it is None and the name ends in .gz.
    """
    if is_stdio(path):
        # standard output: buffered whole and written only on success, so that an error leaves
        # nothing half-written there either
        buf = io.BytesIO() if binary else io.StringIO(newline="\n")
        yield buf
        if binary:
            sys.stdout.buffer.write(buf.getvalue())
        else:
            sys.stdout.write(buf.getvalue())
        sys.stdout.flush()
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if compress is None:
        compress = target.name.endswith(".gz")
    if target.exists() and not target.is_file():
        # a device or a pipe (/dev/null, /dev/stdout, a FIFO): written in place, as any Unix tool
        # writes it; a file renamed over it would replace the device itself
        yield from _write_in_place(target, binary, compress)
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(exc, target) from exc
    os.close(fd)
    try:
        if compress:
            # Level 6 is gzip's default; mtime=0 keeps the output byte-identical across runs.
            raw = open(tmp, "wb")
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0)
            fh: IO = gz if binary else io.TextIOWrapper(gz, encoding="utf-8", newline="\n")
            closers = [fh.close, raw.close]
        else:
            fh = open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": "\n"}))
            closers = [fh.close]
        try:
            yield fh
        finally:
            _close_all(closers, target)
        # mkstemp creates 0600 files; give the output the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write_error(exc: OSError, target: Path) -> CadError:
    """A full disk (or any failed write) named by the output it was for, not a traceback."""
    return CadError(f"cannot write: {exc.strerror or exc}; nothing was written there", str(target))


def _close_all(closers, target: Path) -> None:
    """Close every layer (flushing what is buffered); the first failure, a full disk most often,
    becomes an error naming the output."""
    error = None
    for close in closers:
        try:
            close()
        except OSError as exc:
            error = error or exc
    if error is not None:
        raise _write_error(error, target) from error


@contextlib.contextmanager
def streamed_output(path: str | os.PathLike):
    """A text output written as the work goes, for the commands that write each sentence or
    document when it is done: '-' is standard output itself (the caller flushes it); a file is
    written beside its target and renamed into place when the command ends, successfully or
    stopped by Ctrl-C (what was finished is kept), and removed on an error."""
    if is_stdio(path):
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not target.is_file():
        with open(target, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    fh = open(tmp, "w", encoding="utf-8", newline="\n")
    try:
        yield fh
    except KeyboardInterrupt:
        _into_place(fh, tmp, target)
        raise
    except BaseException:
        fh.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _into_place(fh, tmp, target)


def _into_place(fh, tmp: str, target: Path) -> None:
    fh.close()
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, target)

