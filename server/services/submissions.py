"""The Admin service's submission calls: Submit, WatchVersion, GetVersion, ListVersions,
RollbackBot, SetLadderPolicy, and bot folders given by path (``bot add --path``, ``match run
--seat NAME=DIR``). ``AdminService`` delegates each RPC here in one line.

Who may call what (the lead's permission table takes these over; until then every call is the
admin's, ``author_id=None``):

- Submit: an author, for a bot they own or a new name within their quota; or the admin.
- WatchVersion, GetVersion, ListVersions: anyone; what only the owner and the admin see of a
  version is hidden by ``privacy`` for every reply.
- RollbackBot: the bot's owner or the admin.
- SetLadderPolicy: anyone may read a policy; only the admin may set one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, TypeAlias

import grpc

from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder.bots import authors, versions
from kingmaker.ladder.bots import bots as ladder_bots
from kingmaker.ladder.bots.versions import VersionRecord
from kingmaker.ladder.errors import BoundReachedError, ForbiddenError, LadderError
from kingmaker.ladder.names import check_name
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import BotInfo
from kingmaker.ladder.storage.db import Database
from kingmaker.server.building.builds import build_folder
from kingmaker.server.building.jailed_unpack import StepFailed, check_in_jail
from kingmaker.server.building.submission_archive import FORMATS, ArchiveRefused, sniff_format
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.grpc_abort import abort
from kingmaker.server.jail.launcher import LaunchError
from kingmaker.server.new_versions.submissions import SubmissionPipeline
from kingmaker.server.packing import pack_folder
from kingmaker.server.refereeing.referee import end_reason_proto
from kingmaker.server.seats.roster import Entrant
from kingmaker.server.services import convert, validation
from kingmaker.server.services.host_paths import neutral
from kingmaker.server.services.permissions import Caller
from kingmaker.v1 import admin_pb2

Context: TypeAlias = grpc.aio.ServicerContext
SHA256 = re.compile(r"[0-9a-f]{64}")
WATCH_POLL_SECONDS = 1.0
"""WatchVersion reads the version again at least this often (it is woken at every change)."""


class SubmissionService:
    def __init__(self, db: Database, pipeline: SubmissionPipeline) -> None:
        self.db = db
        self.pipeline = pipeline

    @property
    def limits(self) -> ArchiveLimits:
        return self.pipeline.limits.archive

    async def submit(
        self, chunks: AsyncIterator[admin_pb2.SubmitChunk], context: Context, author_id: int | None = None
    ) -> admin_pb2.VersionInfo:
        """Receive an archive, check it, store it, and start its version's build."""
        first = await anext(aiter(chunks), None)
        if first is None or not first.HasField("header"):
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a submission starts with its header")
        header = first.header
        # Whose bot, and room in the quota and bounds, before anything else is looked at or a
        # byte kept.
        await self._check_submitter(header.bot, author_id, max(0, header.size))
        await self._check_header(header, context)
        received = self.pipeline.blobs.incoming()
        try:
            await self._receive(header, chunks, received)
            async with self.pipeline.retention.lock:  # the blob is not pruned as it is kept
                record = await asyncio.to_thread(
                    versions.start_submission,
                    self.db, header.bot, list(header.games), header.sha256, author_id, header.ab, header.size,
                )  # fmt: skip
                self.pipeline.blobs.keep(received, header.sha256)
        except _Refused as refused:
            received.unlink(missing_ok=True)  # before the caller hears of it: nothing is stored
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(refused))
        finally:
            received.unlink(missing_ok=True)
        record = await self.pipeline.start(record, list(header.games))
        return version_info(record)

    async def _check_submitter(self, bot: str, author_id: int | None, size: int) -> None:
        """The submitter's checks; past the bytes bound, retention prunes the author's versions
        first, and only what is still too much is refused."""
        try:
            await asyncio.to_thread(versions.check_submitter, self.db, bot, author_id, size)
        except BoundReachedError as error:
            if error.bound != "bytes stored" or author_id is None:
                raise
            pruned = await self.pipeline.retention.prune(author_id=author_id)
            if not pruned.versions:
                raise
            await asyncio.to_thread(versions.check_submitter, self.db, bot, author_id, size)

    async def _receive(
        self, header: admin_pb2.SubmitHeader, chunks: AsyncIterator[admin_pb2.SubmitChunk], received: Path
    ) -> None:
        """Write the archive's bytes to ``received``, bounded, and check them; ``_Refused`` if not."""
        digest = hashlib.sha256()
        size = 0
        with received.open("wb") as output:
            async for chunk in chunks:
                data = chunk.data
                if chunk.HasField("header"):
                    raise _Refused("a submission has one header")
                if len(data) > self.limits.chunk_bytes:
                    raise _Refused(f"a chunk is over {self.limits.chunk_bytes:,} bytes")
                size += len(data)
                if size > header.size:
                    raise _Refused(f"the archive is longer than its header said ({header.size:,} bytes)")
                # Hashing and writing a megabyte is milliseconds of the event loop's time, per
                # chunk, per upload: in a thread, so other calls go on while archives arrive.
                await asyncio.to_thread(_take_chunk, digest, output, data)
        if size != header.size:
            raise _Refused(f"the archive ended after {size:,} of its {header.size:,} bytes")
        if digest.hexdigest() != header.sha256:
            raise _Refused("the archive's SHA-256 does not match its header")
        if sniff_format(received) != header.format:
            raise _Refused(f"the archive is not a {header.format}")
        try:  # in the jail: the host never parses a stranger's archive
            await check_in_jail(
                received, header.format, self.limits, self.pipeline.sandbox, self.pipeline.temp_root
            )
        except ArchiveRefused as error:
            raise _Refused(f"archive refused: {error}") from None
        except (StepFailed, LaunchError) as error:
            raise _Refused(f"the server could not check the archive: {error}") from None

    async def _check_in_jail(self, received: Path, kind: str) -> int:
        """Check an archive's members in the jail, where a parser bug reaches nothing of the host."""
        pipeline = self.pipeline
        return await check_in_jail(received, kind, self.limits, pipeline.sandbox, pipeline.temp_root)

    async def _check_header(self, header: admin_pb2.SubmitHeader, context: Context) -> None:
        problem = ""
        try:
            check_name("bot", header.bot)
            for game in header.games:
                get_game(game)
        except (LadderError, UnknownGameError) as error:
            problem = str(error)
        if header.format not in FORMATS:
            problem = problem or f"unknown archive format {header.format!r} (use {', '.join(FORMATS)})"
        elif header.size <= 0:
            problem = problem or "the header must give the archive's size"
        elif header.size > self.limits.archive_bytes:
            problem = problem or (
                f"the archive is {header.size / 2**20:.1f} MiB, over the server's limit of "
                f"{self.limits.archive_bytes / 2**20:g} MiB"
            )
        elif not SHA256.fullmatch(header.sha256):
            problem = problem or "the header must give the archive's SHA-256 in lowercase hex"
        if problem:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, problem)

    async def watch_version(
        self, request: admin_pb2.GetVersionRequest, context: Context, live_log: bool = True
    ) -> AsyncIterator[admin_pb2.VersionInfo]:
        """The version now, then at every change, until it is active, failed, rejected or retired."""
        number = request.number
        last: admin_pb2.VersionInfo | None = None
        printed = 0  # how much of the build's output the stream has sent
        while True:
            record = await asyncio.to_thread(versions.get_version, self.db, request.bot, number)
            number = record.number  # "the newest" stays the version it was when the watch began
            message = version_info(record, with_log=False)
            if live_log:  # the build log is its owner's: what it printed since the last message
                message.build_output, printed = self.pipeline.live_logs.since(record.bot, number, printed)
                clock = self.pipeline.live_logs.clock(record.bot, number)
                if clock is not None and record.status == "building":  # (whole seconds: news once a second)
                    message.build_cpu_seconds = float(int(clock.cpu_seconds))
                    message.build_cpu_limit = clock.cpu_limit
                    message.build_wall_seconds = float(int(clock.wall_seconds))
            if message != last:
                yield message
                last = admin_pb2.VersionInfo()
                last.CopyFrom(message)
                last.build_output = ""  # the next message is news only if something else is
            if record.final:
                return
            await self.pipeline.wait_for_change(WATCH_POLL_SECONDS)

    async def get_version(self, request: admin_pb2.GetVersionRequest) -> admin_pb2.VersionInfo:
        record = await asyncio.to_thread(versions.get_version, self.db, request.bot, request.number)
        return version_info(record)

    async def list_versions(self, request: admin_pb2.ListVersionsRequest) -> admin_pb2.ListVersionsResponse:
        limit = validation.page_size(request.limit, default=50)
        before = validation.page_token_id(request.page_token)
        found = await asyncio.to_thread(versions.list_versions, self.db, request.bot, limit + 1, before)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListVersionsResponse(
            versions=[version_info(record, with_log=False) for record in page],
            next_page_token=str(page[-1].number) if more and page else "",
        )

    async def prune(
        self, request: admin_pb2.PruneVersionsRequest, author: Caller | None
    ) -> admin_pb2.PruneVersionsResponse:
        """Retention now; ``author``: the calling author, who prunes their own bots only (None:
        the admin)."""
        author_id = author.author_id if author is not None else None
        if author is not None and request.author and request.author != author.name:
            raise ForbiddenError(f"only the admin may prune another author's bots ({request.author})")
        if author is None and request.author:
            author_id = (await asyncio.to_thread(authors.get_author, self.db, request.author)).id
        if request.bot:
            await asyncio.to_thread(ladder_bots.get_bot, self.db, request.bot)  # NOT_FOUND if unknown
        pruned = await self.pipeline.retention.prune(request.bot or None, author_id, request.dry_run)
        return admin_pb2.PruneVersionsResponse(
            versions=[
                admin_pb2.PrunedVersion(bot=bot, number=number, bytes=size)
                for bot, number, size in pruned.versions
            ],
            bytes_freed=sum(size for _, _, size in pruned.versions),
            trial_matches=pruned.trial_matches,
        )

    async def rollback(self, request: admin_pb2.RollbackBotRequest) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(versions.rollback, self.db, request.bot, request.number)
        await self.pipeline.retire({bot.id})  # the version it replaces must not play again
        await self.pipeline.notify()
        return await self.bot_message(bot)

    async def ladder_policy(
        self, request: admin_pb2.SetLadderPolicyRequest, context: Context
    ) -> admin_pb2.LadderPolicy:
        try:
            get_game(request.game)
        except UnknownGameError as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        if request.new_version:
            chosen = request.new_version.replace("-", "_")
            await asyncio.to_thread(versions.set_ladder_policy, self.db, request.game, chosen)
        policy = await asyncio.to_thread(versions.ladder_policy, self.db, request.game)
        return admin_pb2.LadderPolicy(game=request.game, new_version=policy)

    async def add_from_folder(
        self, request: admin_pb2.AddBotRequest, context: Context, author_id: int | None = None
    ) -> admin_pb2.AddBotResponse:
        """``bot add NAME --path DIR``: the folder is packed here and goes the submission's way."""
        folder = Path(request.path)
        if not folder.is_dir():
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"no folder {request.path} on the server")
        received = self.pipeline.blobs.incoming()
        try:
            with received.open("wb") as output:
                await asyncio.to_thread(pack_folder, folder, output)
            try:
                await check_in_jail(
                    received, "tar.gz", self.limits, self.pipeline.sandbox, self.pipeline.temp_root
                )
            except ArchiveRefused as error:
                await abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"folder refused: {error}")
            except (StepFailed, LaunchError) as error:
                await abort(
                    context, grpc.StatusCode.FAILED_PRECONDITION, f"the folder could not be checked: {error}"
                )
            sha256 = await asyncio.to_thread(_file_sha256, received)
            size = received.stat().st_size
            async with self.pipeline.retention.lock:  # the blob is not pruned as it is kept
                record = await asyncio.to_thread(
                    versions.start_submission,
                    self.db, request.name, list(request.games), sha256, author_id, False, size,
                )  # fmt: skip
                self.pipeline.blobs.keep(received, sha256)
        finally:
            received.unlink(missing_ok=True)
        await self.pipeline.start(record, list(request.games))
        bot = await asyncio.to_thread(ladder_bots.get_bot, self.db, request.name)
        return admin_pb2.AddBotResponse(bot=await self.bot_message(bot))

    async def folder_entrant(self, seat: admin_pb2.MatchSeat, context: Context) -> Entrant:
        """``match run --seat NAME=DIR``: build the folder now, and seat it from its built folder."""
        folder = Path(seat.path)
        name = seat.bot or folder.name
        if not folder.is_dir():
            await abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, f"seat {name}: no folder {seat.path} on the server"
            )
        pipeline = self.pipeline
        built = await build_folder(
            folder, pipeline.builds, pipeline.sandbox, pipeline.limits.build, pipeline.temp_root, self.limits
        )
        if not built.ok or built.manifest is None or built.build_hash is None:
            lines = [line for line in built.log.strip().splitlines() if line.strip()][-5:]
            failed = built.build_hash is None  # (else it built, and the reason says what is missing)
            said = ("; the build's last lines: " + " | ".join(lines)) if lines and failed else ""
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, f"seat {name}: {built.reason}{said}")
        assert built.manifest is not None
        run = built.manifest
        return Entrant(name, None, run.run, None, None, run.protocol, built.build_hash)

    async def bot_message(self, bot: BotInfo, connected: bool = False) -> admin_pb2.BotInfo:
        """A bot's message with its newest version's number and status."""
        message = convert.bot_message(bot, connected)
        latest = await asyncio.to_thread(versions.latest_versions, self.db, [bot.id])
        if bot.id in latest:
            message.latest_version, message.latest_status = latest[bot.id]
        return message


class _Refused(Exception):
    """A submission breaks a rule; the message says which."""


def version_info(record: VersionRecord, with_log: bool = True) -> admin_pb2.VersionInfo:
    """A version as its owner and the admin see it (``privacy`` hides what others may not), its
    reason with no host path."""
    message = admin_pb2.VersionInfo(
        bot=record.bot,
        number=record.number,
        status=record.status,
        status_reason=neutral(record.status_reason),
        source=record.source,
        archive_hash=record.archive_hash or "",
        build_hash=record.build_hash or "",
        command=list(record.command),
        protocol=record.protocol,
        manifest={key: manifest_text(value) for key, value in record.manifest.items()},
        build_log=record.build_log if with_log else "",
        submitted_by=record.submitted_by,
        created_at=_seconds(record.created_at),
        built_at=_seconds(record.built_at),
        activated_at=_seconds(record.activated_at),
        queue_place=record.queue_place,
        pruned=record.pruned,
    )
    for match in record.validation:
        if isinstance(match, dict) and "ab" in match:
            progress = admin_pb2.DuelProgress(**match["ab"])
            message.ab_games.append(progress)
            message.ab.CopyFrom(progress)  # the last kept is the one that moved last
            continue
        if not isinstance(match, dict) or "game" not in match:
            continue
        message.validation.append(
            admin_pb2.ValidationMatch(
                game=match["game"],
                players=match["players"],
                seat=match["seat"],
                end_reason=end_reason_proto(EndReason(match["end_reason"])),
                detail=match.get("detail", ""),
                stderr_tail=match.get("stderr_tail", ""),
                passed=bool(match.get("passed")),
            )
        )
    return message


def _take_chunk(digest: Any, output: BinaryIO, data: bytes) -> None:
    digest.update(data)
    output.write(data)


def _file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _seconds(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else 0.0


def manifest_text(value: Any) -> str:
    """A manifest value as the wire's map of strings carries it: a list (``games``) as JSON."""
    return value if isinstance(value, str) else json.dumps(value)
