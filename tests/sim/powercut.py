"""Power cuts at the process level, after ALICE (Pillai et al., "All File Systems Are Not Created
Equal", OSDI 2014): a program's file-system calls are recorded with strace, then the files as a
pulled plug could leave them are rebuilt at every point of that record, and the program's own
readers must find at each what it had acknowledged.

What a pulled plug keeps (two models; the station must hold under both):

* ``posix``: only what fsync promised.  A file's contents are what they were at its last fsync
  (or fdatasync); a name in a folder (a create, a rename, an unlink, a mkdir) only once that
  folder was fsync'd.  What was never synced is gone.
* ``metadata_first``: every name change up to the cut is kept (as a journaling file system may
  commit them), but a file's contents still only as of its last fsync: a file renamed over
  another before its contents were synced comes back empty, ext4's delayed-allocation trap.
* ``torn_tail``: as ``metadata_first``, and a file written past its last fsync keeps half of
  what came after (a sector written, the next not): a journal's last line torn mid-record.

``record(command, root, acks)`` runs ``command`` under strace and returns its calls;
``cuts(calls, root, model)`` yields, for every call, the acknowledgements made before it and the
files (under ``root``) as the model keeps them.  The program marks an acknowledgement by writing a
line to the file ``acks`` (outside ``root``); those writes are the marks, not files.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

TRACED = (
    "open,openat,creat,write,pwrite64,writev,sendfile,copy_file_range,close,fsync,fdatasync,"
    "rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat,ftruncate,truncate,lseek,dup,dup2,dup3,"
    "fcntl,link,linkat"
)
LINE = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)")
STRING = re.compile(r'"((?:\\x[0-9a-f]{2})*)"')
MODELS = ("posix", "metadata_first", "torn_tail")


@dataclass(frozen=True)
class Call:
    name: str
    args: str
    result: int


def record(command: list[str], trace: Path, env: dict[str, str] | None = None) -> list[Call]:
    """``command`` run under strace (every thread), its file-system calls in the order they returned."""
    subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-xx",
            "-s",
            "16777216",
            "-e",
            f"trace={TRACED}",
            "-e",
            "signal=none",
            "-o",
            str(trace),
            *command,
        ],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    pending: dict[str, str] = {}
    calls = []
    for line in trace.read_text().splitlines():
        pid = line.split(maxsplit=1)[0]
        if line.endswith("<unfinished ...>"):
            pending[pid] = line[: -len("<unfinished ...>")].rstrip()
            continue
        resumed = re.match(r"^(\d+)\s+<\.\.\. \w+ resumed>(.*)$", line)
        if resumed:
            line = pending.pop(pid, "") + resumed.group(2)
        found = LINE.match(line)
        if found and found.group(4) != "?":
            calls.append(Call(found.group(2), found.group(3), int(found.group(4), 0)))
    return calls


def _text(quoted: str) -> bytes:
    return bytes.fromhex(quoted.replace("\\x", ""))


def _path(args: str, cwd: Path) -> Path:
    found = STRING.search(args)
    assert found, args
    path = Path(os.fsdecode(_text(found.group(1))))
    return path if path.is_absolute() else cwd / path


def _paths(args: str, cwd: Path) -> list[Path]:
    return [(p if p.is_absolute() else cwd / p) for p in (Path(os.fsdecode(_text(q))) for q in STRING.findall(args))]


@dataclass
class Inode:
    data: bytearray = field(default_factory=bytearray)
    synced: bytes = b""  # the contents at the last fsync
    folder: bool = False


@dataclass
class Open:
    inode: Inode
    path: Path
    offset: int = 0
    append: bool = False


class Disk:
    """The files as the program sees them, and as a cut would keep them."""

    def __init__(self, root: Path, acks: Path) -> None:
        self.root, self.acks = root, acks
        self.names: dict[Path, Inode] = {root: Inode(folder=True)}  # what the program sees
        self.kept: dict[Path, Inode] = {root: self.names[root]}  # names the folders' fsyncs made durable
        self.fds: dict[int, Open] = {}
        self.marks: list[str] = []

    def _mine(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def apply(self, call: Call) -> None:  # noqa: C901 - one branch a system call, as strace names them
        name, args, result = call.name, call.args, call.result
        if result < 0:
            return
        if name in ("open", "openat", "creat"):
            path = _path(args, self.root)
            if path == self.acks:
                self.fds[result] = Open(Inode(), path)
                return
            if not self._mine(path):
                return
            inode = self.names.get(path)
            if inode is None:
                inode = self.names[path] = Inode(folder="O_DIRECTORY" in args)
            if "O_TRUNC" in args:
                inode.data.clear()
            self.fds[result] = Open(inode, path, append="O_APPEND" in args)
        elif name in ("write", "pwrite64", "writev"):
            fd = int(args.split(",", 1)[0])
            opened = self.fds.get(fd)
            if opened is None:
                return
            data = b"".join(_text(q) for q in STRING.findall(args))[:result]
            if opened.path == self.acks:
                self.marks += [m for m in data.decode().splitlines() if m]
                return
            at = (
                int(args.rsplit(",", 1)[1])
                if name == "pwrite64"
                else (len(opened.inode.data) if opened.append else opened.offset)
            )
            buffer = opened.inode.data
            if len(buffer) < at:
                buffer.extend(b"\0" * (at - len(buffer)))
            buffer[at : at + len(data)] = data
            if name != "pwrite64":
                opened.offset = at + len(data)
        elif name in ("sendfile", "copy_file_range"):  # the kernel copies: shutil.copy2 on Linux
            numbers = [a.strip() for a in args.split(",")]
            source, target = (numbers[1], numbers[0]) if name == "sendfile" else (numbers[0], numbers[2])
            given = self.fds.get(int(source))
            opened = self.fds.get(int(target))
            if given is not None and opened is not None:
                data = bytes(given.inode.data[given.offset : given.offset + result])
                given.offset += result
                self._write(opened, data, opened.offset)
        elif name == "lseek":
            fd = int(args.split(",", 1)[0])
            if fd in self.fds:
                self.fds[fd].offset = result
        elif name in ("ftruncate", "truncate"):
            inode = (
                self.fds[int(args.split(",", 1)[0])].inode
                if name == "ftruncate" and int(args.split(",", 1)[0]) in self.fds
                else None
            )
            if name == "truncate":
                path = _path(args, self.root)
                inode = self.names.get(path) if self._mine(path) else None
            if inode is not None:
                size = int(args.rsplit(",", 1)[1])
                del inode.data[size:]
                inode.data.extend(b"\0" * (size - len(inode.data)))
        elif name in ("fsync", "fdatasync"):
            opened = self.fds.get(int(args))
            if opened is None:
                return
            if opened.inode.folder:
                for path in [p for p in set(self.names) | set(self.kept) if p.parent == opened.path]:
                    if path in self.names:
                        self.kept[path] = self.names[path]
                    else:
                        self.kept.pop(path, None)
            else:
                opened.inode.synced = bytes(opened.inode.data)
        elif name in ("close",):
            self.fds.pop(int(args), None)
        elif name in ("dup", "dup2", "dup3") or (name == "fcntl" and "F_DUPFD" in args):
            old = int(args.split(",", 1)[0])
            if old in self.fds:
                self.fds[result] = self.fds[old]
        elif name in ("rename", "renameat", "renameat2"):
            source, target = _paths(args, self.root)[:2]
            if self._mine(source) and source in self.names:
                moved = self.names.pop(source)
                for path in [p for p in self.names if source in p.parents]:  # a folder's contents move with it
                    self.names[target / path.relative_to(source)] = self.names.pop(path)
                self.names[target] = moved
        elif name in ("unlink", "unlinkat", "rmdir"):
            path = _path(args, self.root)
            self.names.pop(path, None)
        elif name in ("mkdir", "mkdirat"):
            path = _path(args, self.root)
            if self._mine(path):
                self.names[path] = Inode(folder=True)
        elif name in ("link", "linkat"):
            source, target = _paths(args, self.root)[:2]
            if source in self.names:
                self.names[target] = self.names[source]

    @staticmethod
    def _write(opened: Open, data: bytes, at: int, moves: bool = True) -> None:
        at = len(opened.inode.data) if opened.append else at
        buffer = opened.inode.data
        if len(buffer) < at:
            buffer.extend(b"\0" * (at - len(buffer)))
        buffer[at : at + len(data)] = data
        if moves:
            opened.offset = at + len(data)

    def keep(self, model: str) -> dict[Path, Inode | None]:
        """The files a cut now leaves: each path with its inode (None: a folder)."""
        names = self.kept if model == "posix" else self.names
        alive = {}
        for path, inode in names.items():
            parents_kept = all(p in names for p in path.parents if self._mine(p))  # a lost folder loses its contents
            if parents_kept:
                alive[path] = inode
        return alive


def materialize(kept: dict[Path, Inode], root: Path, into: Path, model: str = "posix") -> None:
    """The cut's files written under ``into`` (as ``root`` was)."""
    for path in sorted(kept, key=lambda p: len(p.parts)):
        target = into / path.relative_to(root)
        inode = kept[path]
        if inode.folder:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        contents = inode.synced
        if model == "torn_tail" and inode.data.startswith(inode.synced):  # appended since: half of it
            contents = bytes(inode.data[: len(inode.synced) + (len(inode.data) - len(inode.synced)) // 2])
        target.write_bytes(contents)


def cuts(calls: list[Call], root: Path, acks: Path, model: str) -> Iterator[tuple[int, list[str], dict[Path, Inode]]]:
    """At every call that changes what a cut keeps: its index, the acknowledgements made so far,
    and the files a plug pulled just then would leave."""
    disk = Disk(root, acks)
    for k, call in enumerate(calls):
        disk.apply(call)
        if call.name in (
            "fsync",
            "fdatasync",
            "rename",
            "renameat",
            "renameat2",
            "unlink",
            "unlinkat",
            "mkdir",
            "mkdirat",
            "write",
        ):
            yield k, list(disk.marks), disk.keep(model)
