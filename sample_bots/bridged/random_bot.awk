# A kingmaker bot in awk, played through the JSON bridge:
#   kingmaker bridge -- awk -W interactive -f sample_bots/bridged/random_bot.awk
# (-W interactive: mawk, Debian's awk, otherwise reads a pipe in blocks and would sit on a request
# until more input came; gawk reads lines anyway and warns that it ignores the option.)
# Every line on stdin is one server message in proto3 JSON. An actionRequest line holds the
# observation and the legal actions, each a google.protobuf.Any with an "@type" key; the bot
# counts the legal actions (every "@type" but the observation's) and answers with a random index,
# naming the request it answers. Other lines (welcome, matchStart, matchEnd, error) need no reply.
# Nothing here parses JSON properly: awk has no JSON library, and a random bot does not need one.

BEGIN { srand() }

/"actionRequest"/ {
    line = $0
    types = gsub(/"@type"/, "&", line)
    legal = types - 1
    if (legal < 1) legal = 1
    print "{\"matchId\": \"" field("matchId") "\", \"requestId\": \"" field("requestId") "\", " \
          "\"legalActionIndex\": " int(rand() * legal) "}"
    fflush()   # stdout is a pipe: without this the reply would wait in awk's buffer
}

/"error"/ { print "random_bot.awk: " $0 > "/dev/stderr" }

# The string value of the first "name": "value" pair on the line.
function field(name,    start, rest) {
    if (!match($0, "\"" name "\": *\"[^\"]*\"")) return ""
    rest = substr($0, RSTART, RLENGTH)
    sub("^\"" name "\": *\"", "", rest)
    sub("\"$", "", rest)
    return rest
}
