"""Goes for the server's keys: its home and the Admin service, through every address it can see.

Usage: ``admin_bot.py HOME TCP_ADDRESS [ADMIN_TOKEN] [VICTIM]``. It reports, each on a
``hostile:`` line:

- ``HOME/admin-token`` and ``HOME/kingmaker.db``: ``read <n> bytes`` or the errno;
- for each address it can find (``$KINGMAKER_SERVER``, every Unix socket under ``/tmp``, ``/run``
  and ``HOME``, the admin lane's socket ``HOME/admin.sock`` whether it is seen or not, and the
  server's ``TCP_ADDRESS``), the gRPC
  status of ``Admin.ListBots``, ``Admin.AddBot`` (planting a bot named ``planted``) and
  ``Admin.SetBotEnabled`` (disabling ``VICTIM``), called with the token it read, else the one it
  was handed (a test hands it the real one, as if it had leaked), else a guess:
  ``<address> <method>: <STATUS>``.

Then it exits without playing: a bot that says no hello leaves its stderr with the server.
"""

from __future__ import annotations

import os
import stat
import sys

import grpc

from kingmaker.sample_bots.hostile.common import errno_name, report
from kingmaker.v1 import admin_pb2, admin_pb2_grpc


def read(path: str) -> str | None:
    """Report what reading ``path`` gave; its text if it could be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        report(f"{path}: {errno_name(error)}")
        return None
    report(f"{path}: read {len(data)} bytes")
    return data.decode(errors="replace").strip()


def sockets_under(folders: list[str]) -> list[str]:
    found = []
    for folder in folders:
        for root, _dirs, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                try:
                    if stat.S_ISSOCK(os.lstat(path).st_mode):
                        found.append(f"unix:{path}")
                except OSError:
                    continue
    return found


def attack(address: str, token: str, victim: str) -> None:
    calls = (
        ("ListBots", admin_pb2.ListBotsRequest()),
        ("AddBot", admin_pb2.AddBotRequest(name="planted", games=["kingdoms"])),
        ("SetBotEnabled", admin_pb2.SetBotEnabledRequest(name=victim, enabled=False)),
    )
    with grpc.insecure_channel(address) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        for method, request in calls:
            try:
                getattr(stub, method)(request, metadata=(("authorization", f"Bearer {token}"),), timeout=5)
                status = "OK"
            except grpc.RpcError as error:
                status = error.code().name
            report(f"{address} {method}: {status}")


def main(home: str, tcp_address: str, handed: str = "", victim: str = "victim") -> None:
    token = read(os.path.join(home, "admin-token"))
    read(os.path.join(home, "kingmaker.db"))
    lane = f"unix:{os.path.join(home, 'admin.sock')}"
    addresses = [
        os.environ.get("KINGMAKER_SERVER", ""),
        *sockets_under(["/tmp", "/run", home]),
        lane,
        tcp_address,
    ]
    for address in dict.fromkeys(a for a in addresses if a):
        attack(address, token or handed or "guess", victim)
    report("done")


if __name__ == "__main__":
    main(*sys.argv[1:])
