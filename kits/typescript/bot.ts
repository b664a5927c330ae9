// A random bot for every kingmaker game, in TypeScript over gRPC (docs/protocol.md). It opens
// one Arena.Play stream to $KINGMAKER_SERVER, says hello with $KINGMAKER_TOKEN, and answers each
// action request with the index of a legal action chosen at random. Logs go to stderr.
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { ProtoGrpcType } from "./gen/arena";
import type { ServerMessage__Output } from "./gen/kingmaker/v1/ServerMessage";
import { decode, type GameRequest } from "./games";

// The same options proto-loader-gen-types was given (package.json), so the types fit.
const PROTO_DIR = path.join(__dirname, "..", "proto");
const GAME_PROTOS = ["kingdoms", "kings_road", "kingsburg", "kingsville"].map((game) => `kingmaker/${game}/v1/${game}.proto`);
const LOADER_OPTIONS = { includeDirs: [PROTO_DIR], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, json: true };

/** Your bot thinks here: `request` is one game's typed request (games.ts), e.g.
 * `if (request.game === "kingdoms") { ... request.observation.players ... }`. */
function choose(request: GameRequest): number {
  return Math.floor(Math.random() * request.legalActions.length);
}

function log(text: string): void {
  process.stderr.write(`typescript-bot: ${text}\n`);
}

function main(): void {
  const server = process.env.KINGMAKER_SERVER;
  if (!server) {
    log("KINGMAKER_SERVER is not set");
    process.exit(2);
  }
  const definition = protoLoader.loadSync(["kingmaker/v1/arena.proto", ...GAME_PROTOS], LOADER_OPTIONS);
  const proto = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  const client = new proto.kingmaker.v1.Arena(server, grpc.credentials.createInsecure());
  const stream = client.Play();
  stream.write({ hello: { token: process.env.KINGMAKER_TOKEN ?? "", client: "kingmaker-typescript-kit/1", protocol_version: 1, acknowledges_match_end: true } });

  stream.on("data", (message: ServerMessage__Output) => {
    if (message.action_request) {
      const request = message.action_request;
      let index: number;
      try {
        index = choose(decode(request));
      } catch (error) {
        log(String(error)); // a kit older than the server: say so and stop
        process.exit(1);
      }
      stream.write({ reply: { match_id: request.match_id, request_id: request.request_id, legal_action_index: index } });
    } else if (message.welcome) {
      log(`connected as ${message.welcome.bot}`);
    } else if (message.error) {
      log(message.error.message);
    } else if (message.match_end) {
      log(`match ${message.match_end.match_id} over`);
      // Done with that match: the server waits for this before it cuts the match's stderr log.
      stream.write({ match_end_seen: { match_id: message.match_end.match_id } });
    }
  });
  stream.on("error", (error: grpc.ServiceError) => {
    log(`stream ended: ${error.details}`);
    process.exitCode = error.code === grpc.status.UNAUTHENTICATED ? 2 : 1;
  });
  stream.on("end", () => {
    // The server is done with this bot.
    stream.end();
    client.close();
  });
}

main();
