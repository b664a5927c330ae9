//! A random bot for every kingmaker game, in Rust, over the JSON bridge (docs/protocol.md, "The
//! JSON bridge"): `kingmaker bridge` speaks gRPC to the server and hands this program one JSON
//! message a line on stdin; it answers each action request with one line on stdout, the index of
//! a legal action chosen at random. Logs go to stderr. Its first line promises to acknowledge each
//! match's end, which it does once it has printed its line about it, so that line stays in that
//! match's log (docs/protocol.md, "Match end").
mod games;

use std::io::{self, BufRead, Write};

use rand::Rng;
use serde::Deserialize;
use serde_json::{json, Value};

use games::Request;

/// The part of an `actionRequest` this bot reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ActionRequest {
    match_id: String,
    request_id: String, // a uint64, so a string in JSON: sent back as it came
    observation: games::Observation,
    legal_actions: Vec<games::Action>,
}

/// Your bot thinks here. `request` is one game's typed request (games.rs): for instance
/// `if let Request::Kingdoms(observation, actions) = request { ... }`.
fn choose(request: &Request, random: &mut impl Rng) -> usize {
    random.gen_range(0..request.legal_action_count())
}

fn main() -> io::Result<()> {
    let mut random = rand::thread_rng();
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{}", json!({"hello": {"acknowledgesMatchEnd": true}}))?;
    stdout.flush()?;
    for line in io::stdin().lock().lines() {
        let message: Value = serde_json::from_str(&line?)?;
        if let Some(request) = message.get("actionRequest") {
            let request: ActionRequest = serde_json::from_value(request.clone())?;
            // A request this kit cannot read is a kit older than the server: say so and stop.
            let game = Request::new(request.observation, request.legal_actions)
                .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
            let reply = json!({
                "matchId": request.match_id,
                "requestId": request.request_id,
                "legalActionIndex": choose(&game, &mut random),
            });
            writeln!(stdout, "{}", reply)?;
            stdout.flush()?; // stdout is a pipe: the bridge waits for this line
        } else if let Some(end) = message.get("matchEnd") {
            eprintln!("rust-bot: match {} over", end["matchId"].as_str().unwrap_or_default());
            // After the line above (stderr is not buffered): the server cuts the match's log here.
            writeln!(stdout, "{}", json!({"matchEndSeen": {"matchId": end["matchId"]}}))?;
            stdout.flush()?;
        } else if let Some(error) = message.get("error") {
            eprintln!("rust-bot: {}", error["message"]);
        }
    }
    Ok(()) // the bridge closed stdin: the server is done with this bot
}
