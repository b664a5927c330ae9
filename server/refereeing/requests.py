"""Each ActionRequest built once, inside the ``ServerMessage`` the stream sends.

A request is mostly its legal actions, and a seat's legal actions are drawn from the same few
hundred actions request after request. Copying a packed action into the message costs a message
object per action; here each action's place in the message (its field key, length and packed
bytes) is encoded once, and a request's legal actions are one parse of those bytes joined, done in
protobuf's C code. The observation is set as the bytes that were fingerprinted (``digest``), and
the message is built where it is sent, never copied into a wrapper.
"""

from __future__ import annotations

import functools

from kingmaker.games.api import Action, Seat
from kingmaker.sdk.codec import PACKED_ACTIONS_KEPT, GameCodec, codec_for, length_delimited_key, varint
from kingmaker.v1 import arena_pb2

_LEGAL_ACTIONS = arena_pb2.ActionRequest.DESCRIPTOR.fields_by_name["legal_actions"].number
_LEGAL_KEY = length_delimited_key(_LEGAL_ACTIONS)


class RequestWriter:
    """Writes the requests of one game (``requests_for``)."""

    def __init__(self, codec: GameCodec) -> None:
        self.codec = codec
        self.observation_url = codec.observation_type_url
        self._same: dict[int, tuple[Action, bytes]] = {}
        """Each action's entry by the action object's id (engines hand out the same objects
        again: found without hashing them); the action is held so that its id stays its own."""
        self._equal: dict[Action, bytes] = {}

    def message(
        self,
        match_id: str,
        seat: Seat,
        observation: bytes,
        legal: tuple[Action, ...],
        deadline_ms: int,
        time_bank_ms: int,
    ) -> arena_pb2.ServerMessage:
        """The message that asks ``seat`` to choose: ``observation`` is the seat's encoded
        observation (``GameCodec.observation_bytes``); the request id is the session's to set."""
        message = arena_pb2.ServerMessage()
        request = message.action_request
        request.match_id = match_id
        request.seat = seat
        request.observation.type_url = self.observation_url
        request.observation.value = observation
        request.MergeFromString(self.legal_actions(legal))
        request.deadline_ms = deadline_ms
        request.time_bank_ms = time_bank_ms
        return message

    def legal_actions(self, legal: tuple[Action, ...]) -> bytes:
        """The ``legal_actions`` field holding these actions, in order, as encoded bytes."""
        same = self._same
        entries = []
        for action in legal:
            found = same.get(id(action))
            if found is None or found[0] is not action:
                found = self._entry(action)
            entries.append(found[1])
        return b"".join(entries)

    def _entry(self, action: Action) -> tuple[Action, bytes]:
        entry = self._equal.get(action)
        if entry is None:
            packed = self.codec.pack_action(action).SerializeToString()
            entry = _LEGAL_KEY + varint(len(packed)) + packed
            if len(self._equal) >= PACKED_ACTIONS_KEPT:
                self._equal.clear()
            self._equal[action] = entry
        if len(self._same) >= PACKED_ACTIONS_KEPT:
            self._same.clear()
        found = self._same[id(action)] = (action, entry)
        return found


@functools.cache
def requests_for(game_name: str) -> RequestWriter:
    """The request writer of a registered game (one per process, its encodings shared by every
    match of the game)."""
    return RequestWriter(codec_for(game_name))
