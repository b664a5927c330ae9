// The four games' requests as their own Go types: the observation and the legal actions of an
// ActionRequest, unpacked from google.protobuf.Any into the messages protoc generated from
// proto/kingmaker/<game>/v1/<game>.proto (each field is documented there).
package main

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	kingdoms "kingmaker/kingdoms/v1"
	kings_road "kingmaker/kings_road/v1"
	kingsburg "kingmaker/kingsburg/v1"
	kingsville "kingmaker/kingsville/v1"
	arena "kingmaker/v1"
)

// GameRequest is one game's request: KingdomsRequest, KingsRoadRequest, KingsburgRequest or
// KingsvilleRequest. Reply with an index into its LegalActions.
type GameRequest interface{ LegalActionCount() int }

type KingdomsRequest struct {
	Observation  *kingdoms.Observation
	LegalActions []*kingdoms.Action
}

type KingsRoadRequest struct {
	Observation  *kings_road.Observation
	LegalActions []*kings_road.Action
}

type KingsburgRequest struct {
	Observation  *kingsburg.Observation
	LegalActions []*kingsburg.Action
}

type KingsvilleRequest struct {
	Observation  *kingsville.Observation
	LegalActions []*kingsville.Action
}

func (r KingdomsRequest) LegalActionCount() int   { return len(r.LegalActions) }
func (r KingsRoadRequest) LegalActionCount() int  { return len(r.LegalActions) }
func (r KingsburgRequest) LegalActionCount() int  { return len(r.LegalActions) }
func (r KingsvilleRequest) LegalActionCount() int { return len(r.LegalActions) }

// decode finds the request's game by its observation's type; an error names a game this kit
// does not know (one added to the server after the kit was written).
func decode(request *arena.ActionRequest) (GameRequest, error) {
	message, err := request.Observation.UnmarshalNew()
	if err != nil {
		return nil, fmt.Errorf("the observation does not decode: %w", err)
	}
	switch observation := message.(type) {
	case *kingdoms.Observation:
		actions, err := unpack[kingdoms.Action](request.LegalActions)
		return KingdomsRequest{observation, actions}, err
	case *kings_road.Observation:
		actions, err := unpack[kings_road.Action](request.LegalActions)
		return KingsRoadRequest{observation, actions}, err
	case *kingsburg.Observation:
		actions, err := unpack[kingsburg.Action](request.LegalActions)
		return KingsburgRequest{observation, actions}, err
	case *kingsville.Observation:
		actions, err := unpack[kingsville.Action](request.LegalActions)
		return KingsvilleRequest{observation, actions}, err
	}
	return nil, fmt.Errorf("no game of this kit has the observation %s", request.Observation.TypeUrl)
}

// unpack decodes each packed action into a new A.
func unpack[A any, P interface {
	*A
	proto.Message
}](packed []*anypb.Any) ([]P, error) {
	actions := make([]P, len(packed))
	for i, one := range packed {
		actions[i] = P(new(A))
		if err := one.UnmarshalTo(actions[i]); err != nil {
			return nil, fmt.Errorf("a legal action does not decode: %w", err)
		}
	}
	return actions, nil
}
