#!/usr/bin/env node
// A kingmaker bot in Node.js. It reads the .proto files in proto/ at run time (no generated
// code), opens one Arena.Play stream, says hello with its token, and answers every
// ActionRequest with the index of the legal action that heuristics.js likes best.
//
// Run it the way the server runs any bot: `node bot.js` with KINGMAKER_SERVER (host:port) and
// KINGMAKER_TOKEN set. docs/protocol.md describes every message it handles.
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const { chooseIndex } = require("./heuristics");

const PROTO_ROOT = process.env.KINGMAKER_PROTO_DIR || path.resolve(__dirname, "..", "..", "proto");

// Every .proto under proto/kingmaker: the core contract and each game's messages, so that the
// google.protobuf.Any payloads can be decoded by their type URL.
function protoFiles(directory) {
  const found = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...protoFiles(full));
    else if (entry.name.endsWith(".proto")) found.push(path.relative(PROTO_ROOT, full));
  }
  return found.sort();
}

function loadArena() {
  const definition = protoLoader.loadSync(protoFiles(path.join(PROTO_ROOT, "kingmaker")), {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names as in the .proto files (legal_actions, not legalActions)
    longs: String, // request_id is a uint64: keep it exact and send it back as given
    enums: String, // enum values by name, e.g. "CARD_DRAGON"
    defaults: true, // unset scalars read as 0 / false / "" like proto3 says
    oneofs: true, // message.message names the member of the oneof that is set
    json: true, // decode google.protobuf.Any into {"@type": ..., ...fields}
  });
  return grpc.loadPackageDefinition(definition).kingmaker.v1;
}

function log(text) {
  process.stderr.write(`node-bot: ${text}\n`);
}

function main() {
  const server = process.env.KINGMAKER_SERVER;
  if (!server) {
    log("KINGMAKER_SERVER is not set");
    process.exit(2);
  }
  const arena = loadArena();
  const client = new arena.Arena(server, grpc.credentials.createInsecure());
  const call = client.Play();
  const seats = new Map(); // match_id -> MatchStart, so each request knows its game

  call.write({
    hello: {
      token: process.env.KINGMAKER_TOKEN || "",
      games: [],
      max_concurrent_matches: 1,
      client: "kingmaker-node-sample/0.1.0",
      protocol_version: 1,
    },
  });

  call.on("data", (message) => {
    switch (message.message) {
      case "welcome":
        log(`connected as ${message.welcome.bot} (session ${message.welcome.session_id})`);
        break;
      case "match_start":
        seats.set(message.match_start.match_id, message.match_start);
        break;
      case "action_request": {
        const request = message.action_request;
        const start = seats.get(request.match_id);
        const index = chooseIndex(start ? start.game : "", request);
        call.write({
          reply: {
            match_id: request.match_id,
            request_id: request.request_id,
            legal_action_index: index,
          },
        });
        break;
      }
      case "match_end": {
        const end = message.match_end;
        seats.delete(end.match_id);
        log(`match ${end.match_id} over: ${end.end_reason}`);
        break;
      }
      case "error":
        log(`${message.error.code}: ${message.error.message}`);
        break;
      default:
        log(`ignoring an unknown message ${JSON.stringify(message.message)}`);
    }
  });
  call.on("error", (error) => {
    // UNAUTHENTICATED and friends end the stream with a status: report it and exit non-zero.
    log(`stream failed: ${grpc.status[error.code]}: ${error.details}`);
    process.exitCode = error.code === grpc.status.UNAUTHENTICATED ? 2 : 1;
  });
  call.on("end", () => {
    // The server closed the stream: the bot's work is done.
    call.end();
    client.close();
  });
}

main();
