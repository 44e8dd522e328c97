//! A complete bot for every game the arena hosts, in Rust with no crate.
//!
//! It plays a legal move chosen at random from the `act` message's `legal` list, with
//! splitmix64 seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put
//! your strategy in `choose`; `wire` decodes a message into a `Value`
//! (`message.get("legal").items()`). Build: `cargo build --release`. Register:
//! `arena bot add bots/kits/rust/target/release/bot --name my-bot`.

mod wire;

use wire::Value;

const NAME: &str = "kit-rust";

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
}

/// The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md).
fn choose(_observation: &Value, legal: &[Value], rng: &mut SplitMix64) -> usize {
    (rng.next() % legal.len() as u64) as usize
}

fn main() -> std::io::Result<()> {
    let mut input = wire::Reader::new();
    let mut rng = SplitMix64(0);
    while let Some(message) = input.next()? {
        match message.get("type").str() {
            "hello" => {
                rng = SplitMix64(message.get("seed").uint());
                let seat = message.get("seat").int().unwrap_or(-1);
                eprintln!("{NAME}: seat {seat} of a {} table", message.get("game").str());
                let version = Value::Str("1".into());
                wire::send(&wire::map(&[("type", Value::Str("ready".into())), ("name", Value::Str(NAME.into())),
                                        ("version", version)]))?;
            }
            "act" => {
                let index = choose(message.get("observation"), message.get("legal").items(), &mut rng);
                wire::send(&wire::map(&[("type", Value::Str("move".into())), ("index", Value::Int(index as i64))]))?;
            }
            "bye" => return Ok(()),
            _ => {} // "deal" and "deal_end" need no reply: read them here to keep track of a board.
        }
    }
    Ok(())
}
