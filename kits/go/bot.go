// A random bot for every kingmaker game, in Go over gRPC (docs/protocol.md). It opens one
// Arena.Play stream to $KINGMAKER_SERVER, says hello with $KINGMAKER_TOKEN, and answers each
// action request with the index of a legal action chosen at random. Logs go to stderr.
package main

import (
	"context"
	"io"
	"log"
	"math/rand"
	"net"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	arena "kingmaker/v1"
)

// choose is where your bot thinks. request is one game's typed request (games.go): for
// instance `if kingdoms, ok := request.(KingdomsRequest); ok { ... kingdoms.Observation ... }`.
func choose(request GameRequest, random *rand.Rand) int {
	return random.Intn(request.LegalActionCount())
}

// dial reaches "host:port" over TCP and "unix:/path" over a Unix socket (the server's address
// for a bot in its jail).
func dial(ctx context.Context, address string) (net.Conn, error) {
	var dialer net.Dialer
	if path := strings.TrimPrefix(address, "unix:"); path != address {
		return dialer.DialContext(ctx, "unix", path)
	}
	return dialer.DialContext(ctx, "tcp", address)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("go-bot: ")
	server := os.Getenv("KINGMAKER_SERVER")
	if server == "" {
		log.Print("KINGMAKER_SERVER is not set")
		os.Exit(2)
	}
	connection, err := grpc.Dial("passthrough:///"+server, grpc.WithInsecure(), grpc.WithContextDialer(dial))
	if err != nil {
		log.Fatalf("cannot reach %s: %v", server, err)
	}
	defer connection.Close()
	stream, err := arena.NewArenaClient(connection).Play(context.Background())
	if err != nil {
		log.Fatalf("cannot open the stream: %v", err)
	}
	hello := &arena.Hello{Token: os.Getenv("KINGMAKER_TOKEN"), Client: "kingmaker-go-kit/1", ProtocolVersion: 1,
		AcknowledgesMatchEnd: true}
	if err := stream.Send(&arena.BotMessage{Message: &arena.BotMessage_Hello{Hello: hello}}); err != nil {
		log.Fatalf("cannot say hello: %v", err)
	}

	random := rand.New(rand.NewSource(time.Now().UnixNano()))
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return // the server is done with this bot
		}
		if err != nil {
			log.Printf("stream ended: %v", err)
			if status.Code(err) == codes.Unauthenticated {
				os.Exit(2)
			}
			os.Exit(1)
		}
		switch kind := message.Message.(type) {
		case *arena.ServerMessage_ActionRequest:
			request := kind.ActionRequest
			game, err := decode(request)
			if err != nil {
				log.Fatal(err) // a kit older than the server
			}
			choice := &arena.ActionReply_LegalActionIndex{LegalActionIndex: uint32(choose(game, random))}
			reply := &arena.ActionReply{MatchId: request.MatchId, RequestId: request.RequestId, Choice: choice}
			if err := stream.Send(&arena.BotMessage{Message: &arena.BotMessage_Reply{Reply: reply}}); err != nil {
				log.Fatalf("cannot reply: %v", err)
			}
		case *arena.ServerMessage_Welcome:
			log.Printf("connected as %s", kind.Welcome.Bot)
		case *arena.ServerMessage_Error:
			log.Print(kind.Error.Message)
		case *arena.ServerMessage_MatchEnd:
			log.Printf("match %s over", kind.MatchEnd.MatchId)
			// Done with that match: the server waits for this before it cuts the match's stderr log.
			seen := &arena.MatchEndSeen{MatchId: kind.MatchEnd.MatchId}
			if err := stream.Send(&arena.BotMessage{Message: &arena.BotMessage_MatchEndSeen{MatchEndSeen: seen}}); err != nil {
				log.Fatalf("cannot acknowledge the match's end: %v", err)
			}
		}
	}
}
