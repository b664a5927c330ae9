// A live match's board, drawn in the browser from the spectator view the server streams: the very
// drawing rules of server/web/boards/ (svg.py, text.py and one module per game), written again
// here line for line, so that the SVG is the same, byte for byte, as the server would draw for a
// spectator (tests/web/test_boards_in_the_browser.py compares them). Only a spectator's board is
// drawn here (every seat's private part hidden); the replays are drawn on the server.
//
//   KingmakerBoards.draw(game, view, bots, facts) -> SVG text
//
// ``facts``: what the rules print that the view does not hold (``boards.board_facts``: King's
// Road's regions, Kingsburg's advisors and buildings), given by the page.
(function () {
  "use strict";

  // text.py: DejaVu Sans's advance widths, lines broken at spaces, the largest size that fits.
  const REGULAR = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775,
    752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390,
    337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
  ];
  const BOLD = [
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696,
    696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821,
    837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457,
    365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
    716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
  ];
  const OTHERS = { "·": 380, "×": 838, "±": 838, "σ": 779, "−": 838, "♔": 897, "—": 1000, "…": 1000 };
  const ASCENT = 0.929, DESCENT = 0.236, LEADING = 1.2, SMALLEST = 5.0;
  // Python's str.split() breaks at these (str.isspace), JavaScript's \s at a few others.
  const SPACES = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

  function width(text, size, bold) {
    const table = bold ? BOLD : REGULAR;
    let total = 0;
    for (const char of text) {
      const code = char.codePointAt(0) - 32;
      total += code >= 0 && code < table.length ? table[code] : (OTHERS[char] ?? 1000);
    }
    return total * size / 1000;
  }

  function wrap(text, room, size, bold) {
    const lines = [];
    for (const paragraph of text.split("\n")) {
      let line = "";
      for (const word of paragraph.split(SPACES)) {
        if (!word) continue;
        const candidate = line ? `${line} ${word}` : word;
        if (line && width(candidate, size, bold) > room) {
          lines.push(line);
          line = word;
        } else {
          line = candidate;
        }
      }
      lines.push(line);
    }
    return lines;
  }

  function height(lines, size) {
    return lines ? size * ((lines - 1) * LEADING + ASCENT + DESCENT) : 0.0;
  }

  function fit(text, room, size, maxLines = null, bold = false) {
    let current = size;
    for (;;) {
      const lines = wrap(text, room, current, bold);
      const widest = Math.max(0.0, ...lines.map((line) => width(line, current, bold)));
      const fits = widest <= room && (maxLines === null || lines.length <= maxLines);
      if (fits || current <= SMALLEST) {
        if (!fits && widest > room) current = Math.floor(current * room / widest * 10) / 10;
        return { size: current, lines, height: height(lines.length, current) };
      }
      current -= 0.5;
    }
  }

  // Numbers as Python writes them: f"{x:.Nf}" rounds the exact binary value, half to even.
  function fixed(x, digits) {
    // A tie is exact only at a quarter (one digit: x = odd / 4) or a half (none: x = odd / 2),
    // where toFixed rounds away from zero; elsewhere it rounds the exact value, as Python does.
    if (Object.is(x, -0)) return "-" + (0).toFixed(digits);
    const ticks = Math.abs(x) * (digits ? 4 : 2);
    if (!(Number.isInteger(ticks) && ticks % 2 === 1)) return x.toFixed(digits);
    let n = Math.floor(Math.abs(x) * (digits ? 10 : 1));
    if (n % 2) n += 1;
    const negative = x < 0 || Object.is(x, -0);
    const whole = digits ? `${Math.floor(n / 10)}.${n % 10}` : String(n);
    return (negative ? "-" : "") + whole;
  }

  // svg.attrs: a number with one decimal at most, none when it is zero.
  function number(x) {
    if (Object.is(x, -0)) return "-0";
    if (Number.isInteger(x)) return String(x);
    const shown = fixed(x, 1);
    return shown.endsWith(".0") ? shown.slice(0, -2) : shown;
  }

  // Python's round(): half to even.
  function pyRound(x) {
    const floor = Math.floor(x);
    if (x - floor !== 0.5) return Math.round(x);
    return floor % 2 === 0 ? floor : floor + 1;
  }

  // Python's str.title(): a letter after a letter is lower case, any other upper case.
  function title(text) {
    let out = "", after = false;
    for (const char of text) {
      const letter = char.toLowerCase() !== char.toUpperCase();
      out += letter ? (after ? char.toLowerCase() : char.toUpperCase()) : char;
      after = letter;
    }
    return out;
  }

  function escape(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }

  function show(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    return String(value);
  }

  const lower = (text) => text.replaceAll("_", " ").toLowerCase();

  // svg.py. Attributes are [name, value] pairs, in Python's order; a null value is left out.
  const SEAT_COLOURS = ["#d9534f", "#337ab7", "#5cb85c", "#f0ad4e", "#9b59b6"];
  const READABLE_PX = 8.0;

  function colour(seat) {
    return seat >= 0 ? SEAT_COLOURS[seat % SEAT_COLOURS.length] : "#888";
  }

  function attrs(pairs) {
    let out = "";
    for (const [name, value] of pairs) {
      if (value === null || value === undefined) continue;
      const shown = typeof value === "number" ? number(value) : show(value);
      out += ` ${name}="${escape(shown)}"`;
    }
    return out;
  }

  function rect(x, y, w, h, fill, more = []) {
    return `<rect${attrs([["x", x], ["y", y], ["width", w], ["height", h], ["fill", fill], ...more])}/>`;
  }

  function circle(cx, cy, r, fill, more = []) {
    return `<circle${attrs([["cx", cx], ["cy", cy], ["r", r], ["fill", fill], ...more])}/>`;
  }

  function group(content, more) {
    return `<g${attrs(more)}>${content.join("")}</g>`;
  }

  function box(frame, content, className = "", more = []) {
    return group([frame, ...content], [["class", `box ${className}`.trim()], ...more]);
  }

  function lines(x, top, fitted, anchor = "start", more = []) {
    const size = fitted.size;
    const spans = fitted.lines.map((line, index) => {
      const step = index ? attrs([["dy", fixed(size * LEADING, 1)]]) : "";
      return `<tspan${attrs([["x", x]])}${step}>${escape(line)}</tspan>`;
    });
    const anchoring = anchor === "start" ? [] : [["text-anchor", anchor]];
    const placed = attrs([["x", x], ["y", top + ASCENT * size], ["font-size", String(size)], ...anchoring, ...more]);
    return `<text${placed}>${spans.join("")}</text>`;
  }

  function label(x, top, room, content, size, anchor = "start", maxLines = null, bold = false, more = []) {
    const fitted = fit(show(content), room, size, maxLines, bold);
    const weight = bold ? [["font-weight", "bold"]] : [];
    return [lines(x, top, fitted, anchor, [...weight, ...more]), fitted.height];
  }

  // An entry of a stack: [content, size, {bold, anchor, attributes: [[name, value], ...]}].
  function stack(x, top, room, entries, gap = 3) {
    const parts = [];
    let y = top;
    for (const [content, size, options = {}] of entries) {
      const more = [...(options.attributes || [])];
      if (options.bold) more.push(["font-weight", "bold"]);
      const fitted = fit(show(content), room, size, null, Boolean(options.bold));
      parts.push(lines(x, y, fitted, options.anchor || "start", more));
      y += fitted.height + gap;
    }
    return [parts, y - gap];
  }

  function documentOf(w, h, content, name) {
    const body = content.join("");
    w = pyRound(w);
    h = pyRound(h);
    const sizes = [...body.matchAll(/font-size="([0-9.]+)"/g)].map((found) => parseFloat(found[1]));
    const smallest = sizes.length ? Math.min(...sizes) : READABLE_PX;
    const narrowest = Math.ceil(w * Math.min(1.0, READABLE_PX / smallest));
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}"` +
      ` width="${w}" height="${h}" style="min-width: ${narrowest}px" role="img"` +
      ` aria-label="${escape(name)}" font-family="DejaVu Sans, Verdana, sans-serif">${body}</svg>`
    );
  }

  const bot = (bots, seat) => (seat < bots.length ? bots[seat] : "");

  // kingdoms.py
  const KINGDOMS = { CELL: 74, PLAYER_W: 270, GAP: 8 };
  const TILE_COLOURS = {
    RESOURCE: "#f4e3a1", HAZARD: "#e8a7a0", MOUNTAIN: "#b0a89c", DRAGON: "#c0504d", GOLD_MINE: "#f2c94c",
    WIZARD: "#a78bd4",
  };

  function kingdoms(view, bots) {
    const { CELL, PLAYER_W, GAP } = KINGDOMS;
    const parts = [];
    view.board.forEach((row, r) => row.cells.forEach((cell, c) => parts.push(kingdomsCell(r, c, cell))));
    const x0 = 6 * CELL + 2 * GAP;
    let y = 0.0;
    for (const player of view.players) {
      const seat = player.seat;
      const castles = player.castles.map((n, rank) => (n ? `rank ${rank + 1} ×${n}` : "")).filter(Boolean);
      const entries = [
        [`seat ${seat} ${bot(bots, seat)}`, 13, { bold: true, attributes: [["fill", colour(seat)]] }],
        [`gold ${player.gold} · castles in hand: ${castles.join(", ") || "none"}`, 12,
          { attributes: [["class", "gold"], ["data-seat", seat], ["data-gold", player.gold]] }],
      ];
      if (player.holds_starting_tile) entries.push(["starting tile: hidden", 11, { attributes: [["fill", "#555"]] }]);
      const [texts, bottom] = stack(x0 + 8, y + 6, PLAYER_W - 16, entries);
      const tall = bottom - y + 6;
      const frame = rect(x0, y, PLAYER_W, tall, "#fff", [["stroke", colour(seat)], ["stroke-width", 3], ["rx", 6]]);
      parts.push(box(frame, texts, "player", [["data-seat", seat]]));
      y = y + tall + GAP;
    }
    const w = x0 + PLAYER_W;
    const turn = view.turn === null ? "over" : `seat ${view.turn}`;
    const status = `epoch ${view.epoch} · supply ${view.supply_size} tiles · turn: ${turn}`;
    const [below, bottom] = stack(0, 5 * CELL + GAP, w, [[status, 13.0]]);
    return documentOf(w, Math.max(bottom, y) + GAP, [...parts, ...below], "Kingdoms board");
  }

  function kingdomsCell(r, c, cell) {
    const { CELL } = KINGDOMS;
    const x = c * CELL, y = r * CELL;
    const { tile, castle } = cell;
    const parts = [];
    if (tile !== null) {
      parts.push(rect(x + 4, y + 4, CELL - 8, CELL - 8, TILE_COLOURS[tile.kind] ?? "#ddd", [["rx", 4]]));
      const [name, used] = label(x + CELL / 2, y + 8, CELL - 14, tile.name, 10, "middle", 2);
      parts.push(name);
      if (tile.value) {
        const signed = (tile.value > 0 ? "+" : "") + tile.value;
        parts.push(label(x + CELL / 2, y + 12 + Math.max(used, 24), CELL - 14, signed, 15, "middle", null, true)[0]);
      }
    }
    if (castle !== null) {
      parts.push(circle(x + CELL / 2, y + CELL / 2, 22, colour(castle.owner), [["stroke", "#333"]]));
      parts.push(label(x + CELL / 2, y + CELL / 2 - 10, 30, castle.rank, 18, "middle", null, true, [["fill", "#fff"]])[0]);
    }
    const frame = rect(x + 1, y + 1, CELL - 2, CELL - 2, "#eef3e6", [["stroke", "#99a"], ["rx", 4]]);
    return box(frame, parts, "cell", [
      ["data-row", r], ["data-column", c], ["data-tile", tile ? tile.name : null],
      ["data-castle", castle ? `${castle.owner}:${castle.rank}` : null],
    ]);
  }

  // kings_road.py
  const ROAD = { CENTRE: 240, RADIUS: 172, REGION: 58, PLAYER_W: 290, GAP: 8 };
  const MIDDLE = { anchor: "middle" };

  function position(number, regions) {
    const angle = 2 * Math.PI * (number - 1) / regions - Math.PI / 2;
    return [ROAD.CENTRE + ROAD.RADIUS * Math.cos(angle), ROAD.CENTRE + ROAD.RADIUS * Math.sin(angle)];
  }

  function kingsRoad(view, bots, facts) {
    const { CENTRE, PLAYER_W, GAP } = ROAD;
    const regions = facts.regions, count = regions.length;
    const named = new Map(regions.map((region) => [region.number, region.name]));
    const cards = new Map(regions.map((region) => [region.name.toUpperCase().replaceAll("'", "").replaceAll(" ", "_"), region.name]));
    const card = (name) => cards.get(name) || title(name.replaceAll("_", " "));
    const parts = [];
    for (const region of regions) {
      const [x, y] = position(region.number, count);
      for (const other of region.roads) {
        if (other > region.number) {
          const [ox, oy] = position(other, count);
          parts.push(`<line x1="${fixed(x, 0)}" y1="${fixed(y, 0)}" x2="${fixed(ox, 0)}" y2="${fixed(oy, 0)}" stroke="#c8b98a" stroke-width="4"/>`);
        }
      }
    }
    for (const region of view.regions) parts.push(roadRegion(region, view.king_region, count));
    const [middle] = stack(CENTRE, CENTRE - 16, 120, [[`round ${view.round}`, 14, MIDDLE], [lower(view.phase), 11, MIDDLE]]);
    parts.push(...middle);
    const x0 = 2 * CENTRE + 16;
    let y = 0.0;
    for (const player of view.standings) {
      const seat = player.seat;
      const specials = [["Dragon", player.has_dragon], ["Witch", player.has_witch]].filter(([, held]) => held).map(([name]) => name);
      const hand = "hand: not this seat's to see" + (specials.length ? ` (holds ${specials.join(", ")})` : "");
      const entries = [
        [`seat ${seat} ${bot(bots, seat)}`, 13, { bold: true, attributes: [["fill", colour(seat)]] }],
        [`score ${player.score} · supply ${player.supply} · nobles ${player.nobles}`, 12,
          { attributes: [["class", "score"], ["data-seat", seat], ["data-score", player.score]] }],
        [hand, 10.5, { attributes: [["fill", "#555"], ["class", "hand"]] }],
      ];
      const [texts, bottom] = stack(x0 + 8, y + 6, PLAYER_W - 16, entries);
      const tall = bottom - y + 6;
      const frame = rect(x0, y, PLAYER_W, tall, "#fff", [["stroke", colour(seat)], ["stroke-width", 3], ["rx", 6]]);
      parts.push(box(frame, texts, "player", [["data-seat", seat]]));
      y = y + tall + GAP;
    }
    const w = x0 + PLAYER_W;
    const last = view.last_revealed
      .map((reveal) => `seat ${reveal.seat}: ${reveal.cards.map(card).join(", ") || "nothing"}`)
      .join("; ");
    const scored = view.last_scored.map((n) => named.get(n)).join(", ");
    const lasts = [[`last round revealed: ${last || "-"}`, 11], [`last scored: ${scored || "-"}`, 11]];
    const [below, bottom] = stack(0, Math.max(2 * CENTRE, y) + GAP, w, lasts);
    return documentOf(w, bottom + GAP, [...parts, ...below], "King's Road board");
  }

  function roadRegion(region, king, count) {
    const { REGION } = ROAD;
    const [x, y] = position(region.number, count);
    const top = y - REGION + 10;
    const [name, used] = label(x, top, 2 * REGION - 26, `${region.number} ${region.name}`, 10, "middle", 2, true);
    const values = "banner " + region.values.join("-");
    const parts = [name, label(x, top + used + 2, 2 * REGION - 30, values, 9, "middle")[0]];
    const markers = region.markers;
    const left = x - (markers.length * 17 - 2) / 2;
    markers.forEach((count, seat) => {
      const [text] = label(left + seat * 17 + 7.5, y + 1, 13, count, 10, "middle", null, false, [["fill", "#fff"]]);
      const frame = rect(left + seat * 17, y - 1, 15, 17, colour(seat), [["rx", 2], ["data-seat", seat], ["data-markers", count]]);
      parts.push(box(frame, [text]));
    });
    let below = y + 20;
    if (region.nobles.length) {
      const crowned = "noble: " + region.nobles.map((seat) => `seat ${seat}`).join(", ");
      const [nobles, tall] = label(x, below, 2 * REGION - 34, crowned, 9, "middle");
      parts.push(nobles);
      below += tall + 1;
    }
    if (region.number === king) parts.push(label(x, below, 2 * REGION - 40, "♔ King", 12, "middle", null, true)[0]);
    const frame = circle(x, y, REGION, "#f3ecd2", [["stroke", "#8c7a4b"], ["stroke-width", region.number === king ? 3 : 1]]);
    return box(frame, parts, "region", [["data-region", region.number], ["data-markers", markers.join(" ")]]);
  }

  // kingsburg.py
  const BURG = { SPACE_W: 82, SPACE_H: 86, CELL_W: 64, CELL_H: 28, GAP: 8 };
  BURG.PROVINCE_W = 5 * BURG.CELL_W + 4 * 3 + 16;

  function kingsburg(view, bots, facts) {
    const { SPACE_W, SPACE_H, PROVINCE_W, GAP } = BURG;
    const w = Math.max(9 * SPACE_W, 2 * PROVINCE_W + GAP);
    const acting = view.acting.map((seat) => `seat ${seat}`).join(" ");
    const heading = `year ${view.year} · ${lower(view.phase)} · deciding: ${lower(view.decision)} ${acting}`;
    let [parts, top] = stack(0, 0, w, [[heading, 13.0]]);
    top += GAP;
    view.court.forEach((space, index) => parts.push(advisor(index, space, top, facts)));
    let y = top + 2 * SPACE_H + GAP;
    let rowBottom = y;
    for (const province of view.provinces) {
      const column = province.seat % 2;
      if (column === 0) y = rowBottom;
      const [drawn, bottom] = burgProvince(province, column * (PROVINCE_W + GAP), y, bots, view.envoy_holder, facts);
      parts.push(drawn);
      rowBottom = Math.max(rowBottom, bottom + GAP);
    }
    const seen = view.enemy;
    const enemy = seen ? `enemy: ${title(seen.kind)} strength ${seen.strength}` : "enemy: hidden until winter";
    const [shown, bottom] = stack(0, rowBottom, w, [[enemy, 12.0, { attributes: [["class", "enemy"]] }]]);
    parts = [...parts, ...shown];
    return documentOf(w, bottom + GAP, parts, "Kingsburg board");
  }

  function advisor(index, space, top, facts) {
    const { SPACE_W, SPACE_H } = BURG;
    const x = (index % 9) * SPACE_W, y = top + Math.floor(index / 9) * SPACE_H;
    const number = space.advisor;
    const [name, used] = label(x + 5, y + 5, SPACE_W - 10, `${number} ${facts.advisors[number - 1]}`, 10, "start", 2, true);
    const parts = [name];
    space.groups.slice(0, 3).forEach((dice, row) => {
      const text = [...dice.coloured, ...dice.white].join("+") + (dice.plus_two ? " +2" : "");
      const dy = y + 8 + Math.max(used, 24) + row * 15;
      const [die] = label(x + 8, dy + 1.5, SPACE_W - 16, text, 10, "start", null, false, [["fill", "#fff"]]);
      parts.push(box(rect(x + 5, dy, SPACE_W - 10, 14, colour(dice.owner), [["rx", 2]]), [die]));
    });
    const owners = space.groups.map((dice) => dice.owner).join(" ");
    const frame = rect(x + 1, y + 1, SPACE_W - 2, SPACE_H - 2, "#f7f1e1", [["stroke", "#b9a46b"], ["rx", 4]]);
    return box(frame, parts, "advisor", [["data-advisor", number], ["data-owners", owners]]);
  }

  function burgProvince(province, x, y, bots, envoy, facts) {
    const { PROVINCE_W, CELL_W, CELL_H } = BURG;
    const seat = province.seat;
    const goods = `gold ${province.gold} · wood ${province.wood} · stone ${province.stone}`;
    const entries = [
      [`seat ${seat} ${bot(bots, seat)}` + (envoy === seat ? " · holds the Envoy" : ""), 12,
        { bold: true, attributes: [["fill", colour(seat)]] }],
      [`VP ${province.vp} · ${goods}`, 11, { attributes: [["class", "vp"], ["data-vp", province.vp]] }],
      [`soldiers ${province.soldiers} · +2 tokens ${province.plus_two}`, 11],
    ];
    const [parts, stacked] = stack(x + 8, y + 6, PROVINCE_W - 16, entries);
    const top = stacked + 6;
    const built = new Set(province.buildings);
    facts.buildings.forEach((building, index) => {
      const bx = x + 8 + (index % 5) * (CELL_W + 3), by = top + Math.floor(index / 5) * (CELL_H + 3);
      const have = built.has(building);
      const fitted = fit(title(building.replaceAll("_", " ")), CELL_W - 6, 9, 2);
      const text = lines(bx + CELL_W / 2, by + (CELL_H - fitted.height) / 2, fitted, "middle", [["fill", have ? "#fff" : "#666"]]);
      const look = [["rx", 3], ["opacity", have ? 0.85 : 1], ["data-building", building], ["data-built", have ? "yes" : "no"]];
      parts.push(box(rect(bx, by, CELL_W, CELL_H, have ? colour(seat) : "#eee", look), [text]));
    });
    let bottom = top + 4 * (CELL_H + 3);
    const dice = [...province.coloured_dice, ...province.white_dice];
    if (dice.length) {
      let rolled;
      [rolled, bottom] = stack(x + 8, bottom + 3, PROVINCE_W - 16, [["dice " + dice.join(" "), 11]]);
      parts.push(...rolled);
    }
    const tall = bottom - y + 8;
    const frame = rect(x, y, PROVINCE_W, tall, "#fff", [["stroke", colour(seat)], ["stroke-width", 3], ["rx", 6]]);
    return [box(frame, parts, "province", [["data-seat", seat]]), y + tall];
  }

  // kingsville.py
  const VILLE = { SLOT_W: 96, CARD_W: 128, CARD_H: 38, GAP: 8 };

  function kingsville(view, bots) {
    const { SLOT_W, CARD_W, GAP } = VILLE;
    const slots = view.castles.length ? Math.max(...view.castles.map((castle) => castle.slots.length)) : 5;
    const w = Math.max(16 + slots * SLOT_W, 140 + 4 * (CARD_W + 4));
    const heading = `age ${view.age}${view.final_round ? " (final round)" : ""} · ${lower(view.phase)} · to act: seat ${show(view.current_player)}`;
    let [parts, y] = stack(0, 0, w, [[heading, 13]]);
    for (const [name, cards, deck] of [
      ["wonders", view.wonder_display, view.wonders_in_deck],
      ["orders", view.order_display, view.orders_in_deck],
    ]) {
      let drawn;
      [drawn, y] = villeDisplay(name, cards, deck, y + GAP);
      parts.push(drawn);
    }
    const supply = view.supply.map((entry) => `${title(entry.person)} ${entry.available}`).join(" · ");
    let people;
    [people, y] = stack(0, y + GAP, w, [[`people in supply: ${supply}`, 11]]);
    parts.push(...people);
    y += GAP;
    for (const castle of view.castles) {
      let drawn;
      [drawn, y] = villeCastle(castle, y, slots, bots);
      parts.push(drawn);
      y += GAP;
    }
    return documentOf(w, y, parts, "Kingsville board");
  }

  function villeDisplay(name, cards, deck, y) {
    const { CARD_W, CARD_H } = VILLE;
    const [caption, used] = label(0, y + 4, 130, `${name} (${deck} in deck)`, 11, "start", null, true);
    const parts = [caption];
    cards.forEach((card, index) => {
      const x = 136 + index * (CARD_W + 4);
      const words = [[card.name, 10, { bold: true }], [cardLine(card), 8.5, { attributes: [["fill", "#555"]] }]];
      const [texts] = stack(x + 5, y + 4, CARD_W - 10, words, 2);
      const fill = name === "wonders" ? "#f6efe0" : "#e3eef7";
      parts.push(box(rect(x, y, CARD_W, CARD_H, fill, [["stroke", "#999"], ["rx", 4], ["data-card", card.name]]), texts));
    });
    return [parts.join(""), y + Math.max(CARD_H, used + 8)];
  }

  function cardLine(card) {
    if ("cost" in card) return `age ${card.age} · costs ${card.cost.gold} gold, ${card.cost.wood} wood`;
    const steps = card.steps.length;
    return `age ${card.age} · ${steps} step${steps !== 1 ? "s" : ""}`;
  }

  function villeCastle(castle, y, slots, bots) {
    const { SLOT_W } = VILLE;
    const seat = castle.seat;
    const w = 16 + slots * SLOT_W;
    const final = castle.score_if_ended_now;
    const scores = `final score if the game ended now: ${final} · points won in play so far: ${castle.points}`;
    const entries = [
      [`seat ${seat} ${bot(bots, seat)}`, 12, { bold: true, attributes: [["fill", colour(seat)]] }],
      [scores, 11, { attributes: [["class", "score"], ["data-seat", seat], ["data-score", final]] }],
      [`gold ${castle.gold} · wood ${castle.wood} · turns taken ${castle.turns_taken}`, 11],
    ];
    let [parts, top] = stack(8, y + 6, w - 16, entries);
    top += 6;
    for (const slot of castle.slots) parts.push(...villeSlot(8 + slot.index * SLOT_W, top, slot, seat));
    const wonders = castle.wonders.map((wonder) => wonder.name).join(", ");
    const [owned, bottom] = stack(8, top + 92, w - 16, [[`wonders: ${wonders || "none"}`, 10, { attributes: [["class", "wonders"]] }]]);
    parts = [...parts, ...owned];
    const tall = bottom - y + 6;
    const frame = rect(0, y, w, tall, "#fff", [["stroke", colour(seat)], ["stroke-width", 3], ["rx", 6]]);
    return [box(frame, parts, "castle", [["data-seat", seat]]), y + tall];
  }

  function villeSlot(x, y, slot, seat) {
    const w = VILLE.SLOT_W - 6;
    const [theatre] = label(x + 3, y + 2, w - 6, slot.has_theatre ? "theatre" : "", 9);
    const person = slot.person;
    const [texts] = stack(x + 4, y + 22, w - 8, [[title(person || "empty"), 10, { attributes: [["fill", person ? "#fff" : "#999"]] }]]);
    if (slot.order) {
      const named = slot.order.name;
      texts.push(...stack(x + 4, y + 36, w - 8, [[named, 9, { attributes: [["fill", "#fff"], ["data-order", named]] }]])[0]);
    }
    const [farm] = label(x + 3, y + 76, w - 6, slot.has_farm ? "farm" : "", 9);
    const personFrame = rect(x, y + 18, w, 54, person ? colour(seat) : "#f2f2f2",
      [["rx", 3], ["opacity", 0.8], ["data-slot", slot.index], ["data-person", person || ""]]);
    return [
      box(rect(x, y, w, 14, slot.has_theatre ? "#c9a0dc" : "#f2f2f2", [["rx", 2]]), [theatre]),
      box(personFrame, texts),
      box(rect(x, y + 74, w, 14, slot.has_farm ? "#9ccc65" : "#f2f2f2", [["rx", 2]]), [farm]),
    ];
  }

  const DRAWERS = { kingdoms, kings_road: kingsRoad, kingsburg, kingsville };

  function draw(game, view, bots, facts = {}) {
    const drawer = DRAWERS[game];
    if (!drawer) {
      const note = `<text${attrs([["x", 0], ["y", 14], ["font-size", 12]])}>${escape(`no board for ${game}`)}</text>`;
      return documentOf(300, 20, [note], game);
    }
    return drawer(view, bots, facts);
  }

  window.KingmakerBoards = { draw, fixed, number };
})();
