// The four games' requests as their own TypeScript types: the observation and the legal actions
// of an ActionRequest, typed by what proto-loader-gen-types generated into gen/ from
// proto/kingmaker/<game>/v1/<game>.proto (each field is documented there).
import type { Action__Output as KingdomsAction } from "./gen/kingmaker/kingdoms/v1/Action";
import type { Observation__Output as KingdomsObservation } from "./gen/kingmaker/kingdoms/v1/Observation";
import type { Action__Output as KingsRoadAction } from "./gen/kingmaker/kings_road/v1/Action";
import type { Observation__Output as KingsRoadObservation } from "./gen/kingmaker/kings_road/v1/Observation";
import type { Action__Output as KingsburgAction } from "./gen/kingmaker/kingsburg/v1/Action";
import type { Observation__Output as KingsburgObservation } from "./gen/kingmaker/kingsburg/v1/Observation";
import type { Action__Output as KingsvilleAction } from "./gen/kingmaker/kingsville/v1/Action";
import type { Observation__Output as KingsvilleObservation } from "./gen/kingmaker/kingsville/v1/Observation";
import type { ActionRequest__Output } from "./gen/kingmaker/v1/ActionRequest";

/** One game's request; reply with an index into its legalActions. */
export type GameRequest =
  | { game: "kingdoms"; observation: KingdomsObservation; legalActions: KingdomsAction[] }
  | { game: "kings_road"; observation: KingsRoadObservation; legalActions: KingsRoadAction[] }
  | { game: "kingsburg"; observation: KingsburgObservation; legalActions: KingsburgAction[] }
  | { game: "kingsville"; observation: KingsvilleObservation; legalActions: KingsvilleAction[] };

const GAMES: Record<string, GameRequest["game"]> = {
  "type.googleapis.com/kingmaker.kingdoms.v1.Observation": "kingdoms",
  "type.googleapis.com/kingmaker.kings_road.v1.Observation": "kings_road",
  "type.googleapis.com/kingmaker.kingsburg.v1.Observation": "kingsburg",
  "type.googleapis.com/kingmaker.kingsville.v1.Observation": "kingsville",
};

/** The request's game, found by its observation's "@type"; throws for a game this kit does not
 * know (one added to the server after the kit was written). */
export function decode(request: ActionRequest__Output): GameRequest {
  const type = (request.observation as { "@type"?: string } | null)?.["@type"] ?? "";
  const game = GAMES[type];
  if (game === undefined) {
    throw new Error(`no game of this kit has the observation ${type}`);
  }
  // The loader decoded each Any into its message (json: true): the generated types describe them.
  return { game, observation: request.observation, legalActions: request.legal_actions } as unknown as GameRequest;
}
