// Which legal action to play: one short scoring rule per game, the best-scoring action wins and
// ties are broken at random. The rules are deliberately simple (a few lines each); they exist to
// show a bot in another language reading observations and actions, not to win tournaments.
//
// Every legal action arrives decoded from its google.protobuf.Any, e.g.
//   {"@type": "type.googleapis.com/kingmaker.kingdoms.v1.Action",
//    action: "place_castle", place_castle: {rank: 2, row: 0, column: 3}}
// where `action` names the member of the Action oneof that is set.
"use strict";

// ---- Kingdoms: castles where the tiles are good, tiles where my castles are ------------------

function cellAt(observation, row, column) {
  return observation.board[row].cells[column];
}

// The sum of the printed tile values in one row and one column (mountains, dragons and the other
// specials count 0): a rough worth of a space for whoever holds castles there.
function crossValue(observation, row, column) {
  let total = 0;
  for (let c = 0; c < observation.board[row].cells.length; c += 1) {
    const cell = cellAt(observation, row, c);
    if (cell.tile && c !== column) total += cell.tile.value;
  }
  for (let r = 0; r < observation.board.length; r += 1) {
    const cell = cellAt(observation, r, column);
    if (cell.tile && r !== row) total += cell.tile.value;
  }
  return total;
}

// My castle ranks minus everyone else's, over one row and one column.
function castleBalance(observation, row, column) {
  let balance = 0;
  const count = (cell) => {
    if (cell.castle) balance += cell.castle.owner === observation.seat ? cell.castle.rank : -cell.castle.rank;
  };
  observation.board[row].cells.forEach(count);
  observation.board.forEach((line) => count(line.cells[column]));
  return balance;
}

function kingdoms(observation, action) {
  switch (action.action) {
    case "place_castle": {
      const { rank, row, column } = action.place_castle;
      return rank * crossValue(observation, row, column);
    }
    case "place_drawn_tile":
    case "place_starting_tile": {
      const placed = action[action.action];
      const tile = action.action === "place_drawn_tile" ? observation.drawn_tile : observation.starting_tile;
      const value = tile ? tile.value : 0;
      return value * castleBalance(observation, placed.row, placed.column);
    }
    case "choose_tile":
      return action.choose_tile.tile ? action.choose_tile.tile.value : 0;
    case "draw_tile":
      return 1; // worth a little: it keeps castles in hand for better spaces later
    default:
      return -1000; // pass only when nothing else is legal
  }
}

// ---- King's Road: add markers where they lift my place most, above all in the King's region --

// Region cards in banner order: CARD_ZIN_KAIS_DEEP is region 1.
const REGION_CARDS = [
  "CARD_ZIN_KAIS_DEEP",
  "CARD_DRAGONS_LAIR",
  "CARD_TEMPLE_RUINS",
  "CARD_SAVAGE_HILLS",
  "CARD_DARK_TOWER",
  "CARD_WIZARDS_TOWER",
  "CARD_KINGS_ALTAR",
  "CARD_KINGS_CASTLE",
];

// The points a seat with `mine` markers would take in a region (ties share the lower place).
function placePoints(region, seat, mine) {
  const ahead = region.markers.filter((count, other) => other !== seat && count >= mine).length;
  return mine > 0 ? region.values[ahead] || 0 : 0;
}

function kingsRoad(observation, action) {
  const added = new Map(); // region number -> markers this play adds
  const cards = action.play_cards.cards;
  let score = 0;
  cards.forEach((card, position) => {
    const number = REGION_CARDS.indexOf(card) + 1;
    if (number > 0) {
      added.set(number, (added.get(number) || 0) + 1);
    } else if (card === "CARD_KNIGHT" && position > 0) {
      const reinforced = REGION_CARDS.indexOf(cards[position - 1]) + 1;
      if (reinforced > 0) added.set(reinforced, (added.get(reinforced) || 0) + 1);
    } else {
      score += observation.round >= 6 ? 2 : -4; // Dragon and Witch are once a game: keep them
    }
  });
  for (const [number, extra] of added) {
    const region = observation.regions[number - 1];
    const mine = region.markers[observation.seat] || 0;
    const gain = placePoints(region, observation.seat, mine + extra) - placePoints(region, observation.seat, mine);
    score += number === observation.king_region ? 2 * gain : gain; // the King's region scores now
  }
  return score;
}

// ---- Kingsburg: build, then the strongest advisors, then the richest gifts ---------------------

function goods(choice) {
  return choice.gold + choice.wood + choice.stone;
}

function kingsburg(observation, action) {
  const chosen = action[action.action];
  switch (action.action) {
    case "construct":
      return 20;
    case "influence":
      return 2 + chosen.advisor / 3 - (chosen.envoy ? 1 : 0) - (chosen.plus_two ? 1 : 0);
    case "take_goods":
      return goods(chosen);
    case "recruit":
      return 3;
    case "use_town_hall":
    case "trade_good":
    case "choose_good":
      return 1;
    case "lose_goods":
      return -goods(chosen);
    case "use_statue":
    case "use_chapel":
      return -0.5; // re-rolls are a gamble: keep what was rolled
    default:
      return 0; // pass
  }
}

// ---- Kingsville: wonders, then people, then orders and buildings ------------------------------

const KINGSVILLE_ORDER = {
  build_wonder: 6,
  upgrade: 4,
  recruit: 3,
  take_order: 2,
  build_theatre: 1.5,
  build_farm: 1.5,
};

function kingsville(observation, action) {
  if (action.action === "choose_optional") return action.choose_optional.perform ? 1 : 0;
  return KINGSVILLE_ORDER[action.action] ?? 0;
}

const RULES = { kingdoms, kings_road: kingsRoad, kingsburg, kingsville };

// The index in request.legal_actions of the action to play.
function chooseIndex(game, request) {
  const rule = RULES[game];
  const actions = request.legal_actions;
  if (!rule) return Math.floor(Math.random() * actions.length); // a game this bot does not know
  let best = [];
  let bestScore = -Infinity;
  actions.forEach((action, index) => {
    const score = rule(request.observation, action);
    if (score > bestScore) {
      bestScore = score;
      best = [index];
    } else if (score === bestScore) {
      best.push(index);
    }
  });
  return best[Math.floor(Math.random() * best.length)];
}

module.exports = { chooseIndex };
