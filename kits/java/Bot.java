// A random bot for every kingmaker game, in Java over gRPC (docs/protocol.md). It opens one
// Arena.Play stream to $KINGMAKER_SERVER, says hello with $KINGMAKER_TOKEN, and answers each
// action request with the index of a legal action chosen at random. Logs go to stderr.
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import kingmaker.v1.ArenaGrpc;
import kingmaker.v1.ArenaOuterClass.ActionReply;
import kingmaker.v1.ArenaOuterClass.ActionRequest;
import kingmaker.v1.ArenaOuterClass.BotMessage;
import kingmaker.v1.ArenaOuterClass.Hello;
import kingmaker.v1.ArenaOuterClass.MatchEndSeen;
import kingmaker.v1.ArenaOuterClass.ServerMessage;

public final class Bot {
    private final Random random = new Random();

    /** Your bot thinks here. {@code request} is one game's typed request (Games.java), e.g.
     * {@code if (request instanceof Games.KingdomsRequest kingdoms) { ... kingdoms.observation() ... }}. */
    int choose(Games.Request request) {
        return random.nextInt(request.legalActionCount());
    }

    public static void main(String[] arguments) throws Exception {
        String server = System.getenv("KINGMAKER_SERVER");
        if (server == null) {
            System.err.println("java-bot: KINGMAKER_SERVER is not set");
            System.exit(2);
        }
        String token = System.getenv().getOrDefault("KINGMAKER_TOKEN", "");
        ManagedChannel channel = NettyChannelBuilder.forTarget(UnixSocketForwarder.reachable(server))
                .usePlaintext()
                .build();
        System.exit(new Bot().play(ArenaGrpc.newStub(channel), token));
    }

    /** Plays until the server ends the stream; the process's exit status. */
    @SuppressWarnings("unchecked") // the array that lets the observer reach its own stream
    int play(ArenaGrpc.ArenaStub arena, String token) throws InterruptedException {
        CountDownLatch over = new CountDownLatch(1);
        int[] status = {0};
        StreamObserver<BotMessage>[] outbox = new StreamObserver[1];
        outbox[0] = arena.play(new StreamObserver<ServerMessage>() {
            @Override
            public void onNext(ServerMessage message) {
                switch (message.getMessageCase()) {
                    case ACTION_REQUEST -> outbox[0].onNext(reply(message.getActionRequest()));
                    case WELCOME -> System.err.println("java-bot: connected as " + message.getWelcome().getBot());
                    case ERROR -> System.err.println("java-bot: " + message.getError().getMessage());
                    case MATCH_END -> {
                        String id = message.getMatchEnd().getMatchId();
                        System.err.println("java-bot: match " + id + " over");
                        // Done with that match: the server waits for this before it cuts the match's stderr log.
                        outbox[0].onNext(BotMessage.newBuilder().setMatchEndSeen(MatchEndSeen.newBuilder().setMatchId(id)).build());
                    }
                    default -> { }
                }
            }

            @Override
            public void onError(Throwable error) {
                Status ended = Status.fromThrowable(error);
                System.err.println("java-bot: stream ended: " + ended);
                status[0] = ended.getCode() == Status.Code.UNAUTHENTICATED ? 2 : 1;
                over.countDown();
            }

            @Override
            public void onCompleted() {
                outbox[0].onCompleted(); // the server is done with this bot
                over.countDown();
            }
        });
        Hello hello = Hello.newBuilder().setToken(token).setClient("kingmaker-java-kit/1").setProtocolVersion(1)
            .setAcknowledgesMatchEnd(true).build();
        outbox[0].onNext(BotMessage.newBuilder().setHello(hello).build());
        over.await();
        return status[0];
    }

    private BotMessage reply(ActionRequest request) {
        int index;
        try {
            index = choose(Games.decode(request));
        } catch (Exception error) { // a kit older than the server: say so and stop
            System.err.println("java-bot: " + error.getMessage());
            System.exit(1);
            return null;
        }
        ActionReply reply = ActionReply.newBuilder()
                .setMatchId(request.getMatchId())
                .setRequestId(request.getRequestId())
                .setLegalActionIndex(index)
                .build();
        return BotMessage.newBuilder().setReply(reply).build();
    }
}
