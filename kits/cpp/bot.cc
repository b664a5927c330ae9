// A random bot for every kingmaker game, in C++ over gRPC (docs/protocol.md). It opens one
// Arena.Play stream to $KINGMAKER_SERVER, says hello with $KINGMAKER_TOKEN, and answers each
// action request with the index of a legal action chosen at random. Logs go to stderr.
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <variant>

#include <grpcpp/grpcpp.h>

#include "games.h"
#include "kingmaker/v1/arena.grpc.pb.h"

using kingmaker::v1::BotMessage;
using kingmaker::v1::ServerMessage;

// Your bot thinks here. `request` is one game's typed request (games.h): for instance
// std::get_if<games::Kingdoms>(&request) gives Kingdoms' observation and legal actions.
int Choose(const games::Request& request, std::mt19937& random) {
  const auto count = std::visit([](const auto& game) { return game.legal_actions.size(); }, request);
  return std::uniform_int_distribution<int>(0, static_cast<int>(count) - 1)(random);
}

int main() {
  const char* server = std::getenv("KINGMAKER_SERVER");
  const char* token = std::getenv("KINGMAKER_TOKEN");
  if (server == nullptr) {
    std::cerr << "cpp-bot: KINGMAKER_SERVER is not set" << std::endl;
    return 2;
  }
  auto arena = kingmaker::v1::Arena::NewStub(grpc::CreateChannel(server, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = arena->Play(&context);

  BotMessage hello;
  hello.mutable_hello()->set_token(token != nullptr ? token : "");
  hello.mutable_hello()->set_client("kingmaker-cpp-kit/1");
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_acknowledges_match_end(true);
  stream->Write(hello);

  std::mt19937 random(std::random_device{}());
  ServerMessage message;
  while (stream->Read(&message)) {
    if (message.has_action_request()) {
      const auto& request = message.action_request();
      BotMessage reply;
      reply.mutable_reply()->set_match_id(request.match_id());
      reply.mutable_reply()->set_request_id(request.request_id());
      try {
        reply.mutable_reply()->set_legal_action_index(Choose(games::Decode(request), random));
      } catch (const std::runtime_error& error) {
        std::cerr << "cpp-bot: " << error.what() << std::endl;  // a kit older than the server
        return 1;
      }
      stream->Write(reply);
    } else if (message.has_welcome()) {
      std::cerr << "cpp-bot: connected as " << message.welcome().bot() << std::endl;
    } else if (message.has_error()) {
      std::cerr << "cpp-bot: " << message.error().message() << std::endl;
    } else if (message.has_match_end()) {
      std::cerr << "cpp-bot: match " << message.match_end().match_id() << " over" << std::endl;
      // Done with that match: the server waits for this before it cuts the match's stderr log.
      BotMessage seen;
      seen.mutable_match_end_seen()->set_match_id(message.match_end().match_id());
      stream->Write(seen);
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (!status.ok()) {
    std::cerr << "cpp-bot: stream ended: " << status.error_message() << std::endl;
    return status.error_code() == grpc::StatusCode::UNAUTHENTICATED ? 2 : 1;
  }
  return 0;
}
