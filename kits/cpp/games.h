// The four games' requests as their own C++ types: the observation and the legal actions of an
// ActionRequest, unpacked from google.protobuf.Any into the messages protoc generated from
// proto/kingmaker/<game>/v1/<game>.proto (each field is documented there).
#pragma once

#include <variant>
#include <vector>

#include "kingmaker/kingdoms/v1/kingdoms.pb.h"
#include "kingmaker/kings_road/v1/kings_road.pb.h"
#include "kingmaker/kingsburg/v1/kingsburg.pb.h"
#include "kingmaker/kingsville/v1/kingsville.pb.h"
#include "kingmaker/v1/arena.pb.h"

namespace games {

template <typename Observation, typename Action>
struct GameRequest {
  Observation observation;
  std::vector<Action> legal_actions;  // in the request's order: reply with an index into it
};

using Kingdoms = GameRequest<kingmaker::kingdoms::v1::Observation, kingmaker::kingdoms::v1::Action>;
using KingsRoad = GameRequest<kingmaker::kings_road::v1::Observation, kingmaker::kings_road::v1::Action>;
using Kingsburg = GameRequest<kingmaker::kingsburg::v1::Observation, kingmaker::kingsburg::v1::Action>;
using Kingsville = GameRequest<kingmaker::kingsville::v1::Observation, kingmaker::kingsville::v1::Action>;

using Request = std::variant<Kingdoms, KingsRoad, Kingsburg, Kingsville>;

// The request's game, found by its observation's type URL. Throws std::runtime_error for a game
// this kit does not know (a game added to the server after the kit was written).
Request Decode(const kingmaker::v1::ActionRequest& request);

}  // namespace games
