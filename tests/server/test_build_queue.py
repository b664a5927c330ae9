"""Builds at once per author: past the bound a build waits, and the waiting start in order."""

from __future__ import annotations

import asyncio

from kingmaker.server.new_versions.build_queue import BuildQueue, BuildTicket


def test_past_the_bound_builds_wait_and_start_in_the_order_they_came() -> None:
    async def scenario() -> list[str]:
        queue = BuildQueue()
        started: list[str] = []
        first, second, third = (queue.enter(7, 1) for _ in range(3))
        other = queue.enter(8, 1)  # another author's build does not wait for ann's
        admins = [queue.enter(None, 1) for _ in range(3)]  # the admin's never wait
        assert not first.waiting and second.waiting and third.waiting
        assert not other.waiting and not any(ticket.waiting for ticket in admins)

        async def build(name: str, ticket: BuildTicket) -> None:
            await ticket.granted
            started.append(name)

        waiting = [asyncio.create_task(build("third", third)), asyncio.create_task(build("second", second))]
        await asyncio.sleep(0)
        assert started == []
        queue.leave(first)
        queue.leave(first)  # leaving twice frees one place, not two
        await asyncio.sleep(0)
        assert started == ["second"] and third.waiting
        queue.leave(second)
        await asyncio.gather(*waiting)
        return started

    assert asyncio.run(scenario()) == ["second", "third"]


def test_a_waiting_build_that_gives_up_leaves_the_line_and_a_raised_bound_lets_more_start() -> None:
    async def scenario() -> None:
        queue = BuildQueue()
        running = queue.enter(7, 1)
        gives_up, next_one = queue.enter(7, 1), queue.enter(7, 1)
        queue.leave(gives_up)  # cancelled while queued
        assert gives_up.granted.cancelled() and next_one.waiting
        raised = queue.enter(7, 3)  # the admin raised the bound: two more may run beside the first
        assert not next_one.waiting and not raised.waiting
        assert queue.running[7] == 3
        for ticket in (running, next_one, raised):
            queue.leave(ticket)
        assert 7 not in queue.running and 7 not in queue.waiting

    asyncio.run(scenario())
