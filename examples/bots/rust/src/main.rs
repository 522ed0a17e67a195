//! A Tabletop Bot Protocol v1 bot (docs/protocol.md): on Insert it completes or blocks a line,
//! in every other game it plays a random legal move.
//! Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
//! The standard library only: the build has no network, so no crates.
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

/// A small JSON reader: enough for every message of the protocol.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

static NULL: Json = Json::Null;

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(m) => m.get(key).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    fn text(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
    fn number(&self) -> f64 {
        match self {
            Json::Number(n) => *n,
            _ => 0.0,
        }
    }
    fn items(&self) -> &[Json] {
        match self {
            Json::Array(v) => v,
            _ => &[],
        }
    }
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    fn parse(text: &'a str) -> Result<Json, String> {
        let mut r = Reader { s: text.as_bytes(), i: 0 };
        let v = r.value()?;
        r.space();
        if r.i != r.s.len() {
            return Err("trailing characters".into());
        }
        Ok(v)
    }
    fn space(&mut self) {
        while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Result<u8, String> {
        self.space();
        self.s.get(self.i).copied().ok_or_else(|| "unexpected end".to_string())
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek()? != c {
            return Err(format!("expected {}", c as char));
        }
        self.i += 1;
        Ok(())
    }
    fn word(&mut self, w: &str) -> bool {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            true
        } else {
            false
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        match self.peek()? {
            b'{' => {
                self.i += 1;
                let mut m = BTreeMap::new();
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Ok(Json::Object(m));
                }
                loop {
                    let key = self.string()?;
                    self.expect(b':')?;
                    m.insert(key, self.value()?);
                    if self.peek()? == b',' {
                        self.i += 1;
                        continue;
                    }
                    self.expect(b'}')?;
                    return Ok(Json::Object(m));
                }
            }
            b'[' => {
                self.i += 1;
                let mut v = Vec::new();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Ok(Json::Array(v));
                }
                loop {
                    v.push(self.value()?);
                    if self.peek()? == b',' {
                        self.i += 1;
                        continue;
                    }
                    self.expect(b']')?;
                    return Ok(Json::Array(v));
                }
            }
            b'"' => Ok(Json::Str(self.string()?)),
            _ if self.word("true") => Ok(Json::Bool(true)),
            _ if self.word("false") => Ok(Json::Bool(false)),
            _ if self.word("null") => Ok(Json::Null),
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
                text.parse::<f64>().map(Json::Number).map_err(|_| "bad number".to_string())
            }
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    match e {
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'r' => out.push('\r'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'u' => {
                            // the arena writes ASCII only: other characters come as \uXXXX
                            let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4).ok_or("bad escape")?)
                                .map_err(|e| e.to_string())?;
                            let code = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                            self.i += 4;
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        other => out.push(other as char),
                    }
                }
                other => out.push(other as char),
            }
        }
    }
}

/// splitmix64: a small seeded generator
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
}

/// A row, a column, both diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// The longest line of `colour` through (row, col) along any direction, counting that cell.
fn run_through(board: &[Vec<u8>], row: i32, col: i32, colour: u8) -> i32 {
    let size = board.len() as i32;
    let at = |r: i32, c: i32| r >= 0 && r < size && c >= 0 && c < size && board[r as usize].get(c as usize) == Some(&colour);
    let mut longest = 0;
    for (dr, dc) in DIRECTIONS {
        let mut length = 1;
        for sign in [1, -1] {
            let (mut r, mut c) = (row + sign * dr, col + sign * dc);
            while at(r, c) {
                length += 1;
                r += sign * dr;
                c += sign * dc;
            }
        }
        longest = longest.max(length);
    }
    longest
}

/// A cell a1..f6 (a1 is the bottom left: the board's last string): five of mine wins, five of
/// theirs must be blocked, else the longer lines of mine and of theirs the better.
fn insert_score(board: &[Vec<u8>], cell: &str, me: u8, them: u8) -> i32 {
    let row = board.len() as i32 - cell[1..].parse::<i32>().unwrap_or(0);
    let col = cell.as_bytes()[0] as i32 - b'a' as i32;
    let (mine, theirs) = (run_through(board, row, col, me), run_through(board, row, col, them));
    1000 * (mine >= 5) as i32 + 100 * (theirs >= 5) as i32 + 3 * mine + 2 * theirs
}

fn choose(game: &str, message: &Json, rng: &mut Rng) -> i64 {
    let mut legal: Vec<&Json> = message.get("legal").items().iter().collect();
    if game == "insert" {
        // seat 0 plays R, seat 1 plays W
        let observation = message.get("observation");
        let board: Vec<Vec<u8>> = observation.get("board").items().iter().map(|r| r.text().as_bytes().to_vec()).collect();
        let (me, them) = if observation.get("to_move").number() == 0.0 { (b'R', b'W') } else { (b'W', b'R') };
        let scores: Vec<i32> = legal.iter().map(|a| insert_score(&board, a.get("text").text(), me, them)).collect();
        let best = *scores.iter().max().unwrap_or(&0);
        legal = legal.into_iter().zip(scores).filter(|(_, s)| *s == best).map(|(a, _)| a).collect();
    }
    legal[(rng.next() % legal.len() as u64) as usize].get("id").number() as i64
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout();
    let mut rng = Rng(0);
    let mut game = String::new();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(_) => return,
        };
        let message = match Reader::parse(&line) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("cannot read a message: {}", e);
                return;
            }
        };
        match message.get("type").text() {
            "start" => {
                rng = Rng(message.get("seed").number() as u64);
                game = message.get("game").text().to_string();
                eprintln!("playing {} in seat {}", message.get("game").text(), message.get("seat").number());
                writeln!(out, r#"{{"type":"hello","name":"rust-kit","protocol":1}}"#).unwrap();
                out.flush().unwrap();
            }
            "request" => {
                writeln!(out, r#"{{"type":"action","id":{}}}"#, choose(&game, &message, &mut rng)).unwrap();
                out.flush().unwrap();
            }
            "end" => return,
            _ => {}
        }
    }
}
