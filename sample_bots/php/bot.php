<?php
// A bot in PHP for all four games, behind `kingmaker bridge` (docs/protocol.md, "The JSON bridge"):
// one JSON message per line on stdin, one reply per line on stdout. PHP has no gRPC package in
// Debian; the bridge speaks gRPC for it. Run it: kingmaker bridge -- php sample_bots/php/bot.php
//
// Each legal action is scored by one short rule per game and the best is played (ties at random):
// simple rules, there to show a bot reading observations and actions, not to win tournaments.
// Log to stderr; stdout is for replies only (PHP prints warnings on stderr with Debian's php.ini).

// Fields at their zero value may be missing at the top of an observation: read them as zero.
function field(array $values, string $name, $zero = 0) {
    return $values[$name] ?? $zero;
}

// The kind of an action, e.g. "placeCastle": its one key beside "@type".
function kind_of(array $action): string {
    foreach ($action as $key => $value) {
        if ($key !== '@type') return $key;
    }
    return '';
}

// ---- Kingdoms: castles where the tiles are good, tiles where my castles are ---------------

function line_cells(array $observation, int $row, int $column): array {
    $cells = [];
    foreach ($observation['board'][$row]['cells'] as $c => $cell) {
        if ($c !== $column) $cells[] = $cell;
    }
    foreach ($observation['board'] as $r => $line) {
        if ($r !== $row) $cells[] = $line['cells'][$column];
    }
    return $cells;
}

function kingdoms(array $observation, array $action): float {
    $kind = kind_of($action);
    $seat = field($observation, 'seat');
    $chosen = $action[$kind];
    switch ($kind) {
        case 'placeCastle':
            $worth = 0;
            foreach (line_cells($observation, $chosen['row'], $chosen['column']) as $cell) {
                $worth += isset($cell['tile']) ? field($cell['tile'], 'value') : 0;
            }
            return $chosen['rank'] * $worth;
        case 'placeDrawnTile':
        case 'placeStartingTile':
            $tile = $kind === 'placeDrawnTile' ? field($observation, 'drawnTile', []) : field($observation, 'startingTile', []);
            $balance = 0;
            foreach (line_cells($observation, $chosen['row'], $chosen['column']) as $cell) {
                if (isset($cell['castle'])) {
                    $rank = $cell['castle']['rank'];
                    $balance += field($cell['castle'], 'owner') === $seat ? $rank : -$rank;
                }
            }
            return field($tile, 'value') * $balance;
        case 'chooseTile':
            return field(field($chosen, 'tile', []), 'value');
        case 'drawTile':
            return 1; // keeps castles in hand for better spaces later
        default:
            return -1000; // pass only when nothing else is legal
    }
}

// ---- King's Road: markers where they lift my place most, above all in the King's region ---

const REGION_CARDS = ['CARD_ZIN_KAIS_DEEP', 'CARD_DRAGONS_LAIR', 'CARD_TEMPLE_RUINS', 'CARD_SAVAGE_HILLS',
    'CARD_DARK_TOWER', 'CARD_WIZARDS_TOWER', 'CARD_KINGS_ALTAR', 'CARD_KINGS_CASTLE'];

// The points a seat with $mine markers would take in a region (ties share the lower place).
function place_points(array $region, int $seat, int $mine): int {
    if ($mine <= 0) return 0;
    $ahead = 0;
    foreach (field($region, 'markers', []) as $other => $count) {
        if ($other !== $seat && $count >= $mine) $ahead++;
    }
    return field($region, 'values', [])[$ahead] ?? 0;
}

// Rounds until each region scores, along the King's route from his region (1, 6, 4, 7, 3, 5, 2, 8).
const ROUTE = [1, 6, 4, 7, 3, 5, 2, 8];

function kings_road(array $observation, array $action): float {
    $seat = field($observation, 'seat');
    $cards = field($action['playCards'], 'cards', []);
    $added = [];
    $score = mt_rand() / mt_getrandmax() * 0.3; // noise: two copies must not mirror each other
    foreach ($cards as $position => $card) {
        $number = array_search($card, REGION_CARDS, true);
        if ($number !== false) {
            $added[$number + 1] = ($added[$number + 1] ?? 0) + 1;
        } elseif ($card === 'CARD_KNIGHT' && $position > 0) {
            $before = array_search($cards[$position - 1], REGION_CARDS, true);
            if ($before !== false) $added[$before + 1] = ($added[$before + 1] ?? 0) + 1;
        } else {
            $score -= 1.5; // the Dragon and the Witch are once a game: keep them for later
        }
    }
    foreach ($added as $number => $extra) {
        $region = $observation['regions'][$number - 1];
        $mine = field($region, 'markers', [])[$seat] ?? 0;
        $gain = place_points($region, $seat, $mine + $extra) - place_points($region, $seat, $mine);
        // A region scoring soon is worth more: the King's region now, the next ones less and less.
        $wait = (array_search($number, ROUTE) - array_search(field($observation, 'kingRegion', 1), ROUTE) + 8) % 8;
        $score += $gain * 0.55 ** $wait;
    }
    return $score;
}

// ---- Kingsburg: build, then the strongest advisors, then the richest gifts ----------------

function kingsburg(array $observation, array $action): float {
    $kind = kind_of($action);
    $chosen = $action[$kind];
    $goods = field($chosen, 'gold') + field($chosen, 'wood') + field($chosen, 'stone');
    switch ($kind) {
        case 'construct': return 20;
        case 'influence':
            return 2 + $chosen['advisor'] / 3 - (field($chosen, 'envoy', false) ? 1 : 0) - (field($chosen, 'plusTwo', false) ? 1 : 0);
        case 'takeGoods': return $goods;
        case 'recruit': return 3;
        case 'useTownHall': case 'tradeGood': case 'chooseGood': return 1;
        case 'loseGoods': return -$goods;
        case 'useStatue': case 'useChapel': return -0.5; // re-rolls are a gamble
        default: return 0; // pass
    }
}

// ---- Kingsville: wonders, then people, then orders and buildings --------------------------

// A person is lost at the end of an age unless a farm shelters it, and costs 5 points without a
// theatre: recruit into sheltered slots, and build farms and theatres for the people to come.
function kingsville(array $observation, array $action): float {
    $kind = kind_of($action);
    $me = $observation['castles'][field($observation, 'seat')];
    $people = 0;
    foreach (field($me, 'slots', []) as $slot) {
        if (isset($slot['person'])) $people++;
    }
    $farms = field($me, 'farms');
    $theatres = field($me, 'theatres');
    switch ($kind) {
        case 'chooseOptional': return field($action[$kind], 'perform', false) ? 1 : 0;
        case 'buildWonder': return 6;
        case 'recruit': return ($people < $farms && $people < $theatres) ? 5 : 0.5;
        case 'buildFarm': return $farms <= $people ? 4 : ($farms <= $theatres ? 2 : 0.2);
        case 'buildTheatre': return $theatres <= $people ? 4 : ($theatres <= $farms ? 2 : 0.2);
        case 'upgrade': return 3;
        case 'takeOrder': return 2.5;
        default: return 0;
    }
}

// The index in $actions of the action to play.
function choose(string $game, array $observation, array $actions): int {
    $rules = ['kingdoms' => 'kingdoms', 'kings_road' => 'kings_road', 'kingsburg' => 'kingsburg',
        'kingsville' => 'kingsville'];
    if (!isset($rules[$game])) return mt_rand(0, count($actions) - 1); // a game it does not know
    $best = [];
    $best_score = -INF;
    foreach ($actions as $index => $action) {
        $score = $rules[$game]($observation, $action);
        if ($score > $best_score) {
            $best_score = $score;
            $best = [$index];
        } elseif ($score == $best_score) {
            $best[] = $index;
        }
    }
    return $best[mt_rand(0, count($best) - 1)];
}

// `--seed N` makes its choices repeatable (the tests play it against a seeded random bot).
$seed = array_search('--seed', $argv, true);
if ($seed !== false && isset($argv[$seed + 1])) mt_srand((int) $argv[$seed + 1]);

// Acknowledge each match's end once its line is written, so the line stays in that match's log
// (docs/protocol.md, "The JSON bridge"): promised first.
echo json_encode(['hello' => ['acknowledgesMatchEnd' => true]]), "\n";
fflush(STDOUT);

$games = []; // match id -> game
while (($line = fgets(STDIN)) !== false) {
    $message = json_decode($line, true);
    if (isset($message['matchStart'])) {
        $games[$message['matchStart']['matchId']] = $message['matchStart']['game'];
    } elseif (isset($message['matchEnd'])) {
        $match_id = $message['matchEnd']['matchId'];
        unset($games[$match_id]);
        fwrite(STDERR, "php bot: match $match_id over\n"); // STDERR is not buffered
        echo json_encode(['matchEndSeen' => ['matchId' => $match_id]]), "\n";
        fflush(STDOUT);
    } elseif (isset($message['error'])) {
        fwrite(STDERR, "php bot: the server says {$message['error']['code']}: {$message['error']['message']}\n");
    } elseif (isset($message['actionRequest'])) {
        $request = $message['actionRequest'];
        $index = choose($games[$request['matchId']] ?? '', $request['observation'], $request['legalActions']);
        echo json_encode(['matchId' => $request['matchId'], 'requestId' => $request['requestId'],
            'legalActionIndex' => $index]), "\n";
        fflush(STDOUT);
    }
}
