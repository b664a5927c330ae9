// The four games' requests as their own Java types: the observation and the legal actions of an
// ActionRequest, unpacked from google.protobuf.Any into the classes protoc generated from
// proto/kingmaker/<game>/v1/<game>.proto (each field is documented there).
import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import kingmaker.kingdoms.v1.Kingdoms;
import kingmaker.kings_road.v1.KingsRoad;
import kingmaker.kingsburg.v1.Kingsburg;
import kingmaker.kingsville.v1.Kingsville;
import kingmaker.v1.ArenaOuterClass.ActionRequest;

final class Games {
    /** One game's request; reply with an index into its legal actions. */
    sealed interface Request permits KingdomsRequest, KingsRoadRequest, KingsburgRequest, KingsvilleRequest {
        int legalActionCount();
    }

    record KingdomsRequest(Kingdoms.Observation observation, List<Kingdoms.Action> legalActions)
            implements Request {
        public int legalActionCount() { return legalActions.size(); }
    }

    record KingsRoadRequest(KingsRoad.Observation observation, List<KingsRoad.Action> legalActions)
            implements Request {
        public int legalActionCount() { return legalActions.size(); }
    }

    record KingsburgRequest(Kingsburg.Observation observation, List<Kingsburg.Action> legalActions)
            implements Request {
        public int legalActionCount() { return legalActions.size(); }
    }

    record KingsvilleRequest(Kingsville.Observation observation, List<Kingsville.Action> legalActions)
            implements Request {
        public int legalActionCount() { return legalActions.size(); }
    }

    /** The request's game, found by its observation's type URL; throws for a game this kit does
     * not know (one added to the server after the kit was written). */
    static Request decode(ActionRequest request) throws InvalidProtocolBufferException {
        Any observation = request.getObservation();
        if (observation.is(Kingdoms.Observation.class)) {
            return new KingdomsRequest(observation.unpack(Kingdoms.Observation.class),
                    unpack(request, Kingdoms.Action.class));
        }
        if (observation.is(KingsRoad.Observation.class)) {
            return new KingsRoadRequest(observation.unpack(KingsRoad.Observation.class),
                    unpack(request, KingsRoad.Action.class));
        }
        if (observation.is(Kingsburg.Observation.class)) {
            return new KingsburgRequest(observation.unpack(Kingsburg.Observation.class),
                    unpack(request, Kingsburg.Action.class));
        }
        if (observation.is(Kingsville.Observation.class)) {
            return new KingsvilleRequest(observation.unpack(Kingsville.Observation.class),
                    unpack(request, Kingsville.Action.class));
        }
        throw new InvalidProtocolBufferException("no game of this kit has the observation " + observation.getTypeUrl());
    }

    private static <A extends Message> List<A> unpack(ActionRequest request, Class<A> type)
            throws InvalidProtocolBufferException {
        List<A> actions = new ArrayList<>(request.getLegalActionsCount());
        for (Any packed : request.getLegalActionsList()) {
            actions.add(packed.unpack(type));
        }
        return actions;
    }

    private Games() {}
}
