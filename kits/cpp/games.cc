#include "games.h"

#include <stdexcept>
#include <string>

namespace games {
namespace {

template <typename Game>
Game Unpack(const kingmaker::v1::ActionRequest& request) {
  Game game;
  if (!request.observation().UnpackTo(&game.observation)) {
    throw std::runtime_error("the observation does not decode: " + request.observation().type_url());
  }
  game.legal_actions.resize(request.legal_actions_size());
  for (int i = 0; i < request.legal_actions_size(); ++i) {
    if (!request.legal_actions(i).UnpackTo(&game.legal_actions[i])) {
      throw std::runtime_error("a legal action does not decode: " + request.legal_actions(i).type_url());
    }
  }
  return game;
}

}  // namespace

Request Decode(const kingmaker::v1::ActionRequest& request) {
  const auto& observation = request.observation();
  if (observation.Is<kingmaker::kingdoms::v1::Observation>()) return Unpack<Kingdoms>(request);
  if (observation.Is<kingmaker::kings_road::v1::Observation>()) return Unpack<KingsRoad>(request);
  if (observation.Is<kingmaker::kingsburg::v1::Observation>()) return Unpack<Kingsburg>(request);
  if (observation.Is<kingmaker::kingsville::v1::Observation>()) return Unpack<Kingsville>(request);
  throw std::runtime_error("no game of this kit has the observation " + observation.type_url());
}

}  // namespace games
