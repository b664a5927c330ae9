# A random bot for every kingmaker game, in Ruby over gRPC (docs/protocol.md). It opens one
# Arena.Play stream to $KINGMAKER_SERVER, says hello with $KINGMAKER_TOKEN, and answers each
# action request with the index of a legal action chosen at random. Logs go to stderr.
$LOAD_PATH.unshift(File.join(__dir__, "lib"), __dir__)
require "grpc"
require "kingmaker/v1/arena_services_pb"
require "games"

# Your bot thinks here. request is one game's typed request (games.rb): request.game names it,
# request.observation is that game's Observation, request.legal_actions its Actions.
def choose(request)
  rand(request.legal_actions.size)
end

server = ENV.fetch("KINGMAKER_SERVER") { abort "ruby-bot: KINGMAKER_SERVER is not set" }
arena = Kingmaker::V1::Arena::Stub.new(server, :this_channel_is_insecure)
outbox = Queue.new # gRPC sends what the enumerator yields; the reading loop below feeds it
hello = Kingmaker::V1::Hello.new(token: ENV.fetch("KINGMAKER_TOKEN", ""), client: "kingmaker-ruby-kit/1",
                                 protocol_version: 1, acknowledges_match_end: true)
outbox << Kingmaker::V1::BotMessage.new(hello: hello)
outgoing = Enumerator.new { |messages| while (message = outbox.pop) != :done do messages << message end }

begin
  arena.play(outgoing).each do |message|
    case message.message
    when :action_request
      request = message.action_request
      reply = Kingmaker::V1::ActionReply.new(match_id: request.match_id, request_id: request.request_id,
                                             legal_action_index: choose(Games.decode(request)))
      outbox << Kingmaker::V1::BotMessage.new(reply: reply)
    when :welcome then warn "ruby-bot: connected as #{message.welcome.bot}"
    when :error then warn "ruby-bot: #{message.error.message}"
    when :match_end
      warn "ruby-bot: match #{message.match_end.match_id} over"
      # Done with that match: the server waits for this before it cuts the match's stderr log.
      outbox << Kingmaker::V1::BotMessage.new(match_end_seen: { match_id: message.match_end.match_id })
    end
  end
rescue GRPC::Unauthenticated => e
  warn "ruby-bot: refused: #{e.details}"
  exit 2
rescue GRPC::BadStatus => e
  warn "ruby-bot: stream ended: #{e.details}"
  exit 1
ensure
  outbox << :done
end
