# The four games' requests as their own Ruby types: the observation and the legal actions of an
# ActionRequest, unpacked from google.protobuf.Any into the messages generated from
# proto/kingmaker/<game>/v1/<game>.proto (each field is documented there).
require "google/protobuf/well_known_types"
require "kingmaker/kingdoms/v1/kingdoms_pb"
require "kingmaker/kings_road/v1/kings_road_pb"
require "kingmaker/kingsburg/v1/kingsburg_pb"
require "kingmaker/kingsville/v1/kingsville_pb"

module Games
  # game: "kingdoms", ...; observation: that game's Observation; legal_actions: its Actions, in
  # the request's order (reply with an index into them).
  Request = Struct.new(:game, :observation, :legal_actions)

  # Each game's Observation and Action classes, by game name.
  TYPES = {
    "kingdoms" => [Kingmaker::Kingdoms::V1::Observation, Kingmaker::Kingdoms::V1::Action],
    "kings_road" => [Kingmaker::KingsRoad::V1::Observation, Kingmaker::KingsRoad::V1::Action],
    "kingsburg" => [Kingmaker::Kingsburg::V1::Observation, Kingmaker::Kingsburg::V1::Action],
    "kingsville" => [Kingmaker::Kingsville::V1::Observation, Kingmaker::Kingsville::V1::Action],
  }.freeze

  # The request's game, found by its observation's type URL. Raises for a game this kit does not
  # know (one added to the server after the kit was written).
  def self.decode(request)
    game, (observation, action) = TYPES.find { |_, (type, _)| request.observation.is(type) }
    raise "no game of this kit has the observation #{request.observation.type_url}" unless game

    Request.new(game, request.observation.unpack(observation), request.legal_actions.map { |one| one.unpack(action) })
  end
end
