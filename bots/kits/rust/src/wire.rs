//! The arena's wire format with nothing but the standard library (protocol.md sections 1 and
//! 13): a msgpack decoder (every format but extensions, which the arena never sends) into a
//! `Value` tree, an encoder for what a bot sends, and the message stream on stdin and stdout
//! (`Stdin::read` returns what has arrived: no waiting for a full buffer).

use std::io::{self, Read, Write};

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64), // above i64::MAX (hello.seed may be)
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(String, Value)>),
}

static NIL: Value = Value::Nil;

impl Value {
    /// A map's field, else nil.
    pub fn get(&self, key: &str) -> &Value {
        match self {
            Value::Map(fields) => fields.iter().find(|(k, _)| k == key).map_or(&NIL, |(_, v)| v),
            _ => &NIL,
        }
    }
    /// An array's items (none for anything else).
    pub fn items(&self) -> &[Value] {
        match self {
            Value::Array(items) => items,
            _ => &[],
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Value::Str(s) => s,
            _ => "",
        }
    }
    pub fn int(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }
    pub fn uint(&self) -> u64 {
        match *self {
            Value::Uint(u) => u,
            Value::Int(i) => i as u64,
            _ => 0,
        }
    }
}

/// Why a decode stopped: the bytes end inside the value, or they are not the protocol's msgpack.
#[derive(Debug)]
pub enum Error {
    Incomplete,
    Bad(u8),
}

struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8], Error> {
        if n > (self.buf.len() - self.pos) as u64 {
            return Err(Error::Incomplete);
        }
        let at = self.pos;
        self.pos += n as usize;
        Ok(&self.buf[at..self.pos])
    }

    fn number(&mut self, width: u32) -> Result<u64, Error> {
        Ok(self.take(width as u64)?.iter().fold(0u64, |x, &b| x << 8 | b as u64))
    }

    fn value(&mut self) -> Result<Value, Error> {
        let b = self.take(1)?[0];
        Ok(match b {
            0x00..=0x7f | 0xe0..=0xff => Value::Int(b as i8 as i64),
            0x80..=0x8f => self.map((b & 0x0f) as u64)?,
            0x90..=0x9f => self.array((b & 0x0f) as u64)?,
            0xa0..=0xbf => self.text((b & 0x1f) as u64)?,
            0xc0 => Value::Nil,
            0xc2 | 0xc3 => Value::Bool(b == 0xc3),
            0xc4..=0xc6 => {
                let n = self.number(1 << (b - 0xc4))?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xca => Value::Float(f32::from_bits(self.number(4)? as u32) as f64),
            0xcb => Value::Float(f64::from_bits(self.number(8)?)),
            0xcc..=0xcf => match self.number(1 << (b - 0xcc))? {
                x if x > i64::MAX as u64 => Value::Uint(x),
                x => Value::Int(x as i64),
            },
            0xd0..=0xd3 => {
                let width = 1u32 << (b - 0xd0);
                let shift = 64 - 8 * width;
                Value::Int(((self.number(width)? << shift) as i64) >> shift) // sign-extended
            }
            0xd9..=0xdb => {
                let n = self.number(1 << (b - 0xd9))?;
                self.text(n)?
            }
            0xdc | 0xdd => {
                let n = self.number(2 << (b - 0xdc))?;
                self.array(n)?
            }
            0xde | 0xdf => {
                let n = self.number(2 << (b - 0xde))?;
                self.map(n)?
            }
            _ => return Err(Error::Bad(b)),
        })
    }

    fn text(&mut self, n: u64) -> Result<Value, Error> {
        Ok(Value::Str(String::from_utf8_lossy(self.take(n)?).into_owned()))
    }

    fn array(&mut self, n: u64) -> Result<Value, Error> {
        if n > (self.buf.len() - self.pos) as u64 {
            return Err(Error::Incomplete); // each item takes a byte at least
        }
        (0..n).map(|_| self.value()).collect::<Result<_, _>>().map(Value::Array)
    }

    fn map(&mut self, n: u64) -> Result<Value, Error> {
        if n > (self.buf.len() - self.pos) as u64 {
            return Err(Error::Incomplete);
        }
        let mut fields = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let key = match self.value()? {
                Value::Str(s) => s,
                other => format!("{other:?}"),
            };
            fields.push((key, self.value()?));
        }
        Ok(Value::Map(fields))
    }
}

/// One value at the start of `buf`, and how many bytes it took.
pub fn unpack(buf: &[u8]) -> Result<(Value, usize), Error> {
    let mut d = Decoder { buf, pos: 0 };
    let v = d.value()?;
    Ok((v, d.pos))
}

/// msgpack bytes of a value (what a bot sends).
pub fn pack(value: &Value, out: &mut Vec<u8>) {
    fn head(out: &mut Vec<u8>, kind: u8, n: u64, width: usize) {
        out.push(kind);
        out.extend_from_slice(&n.to_be_bytes()[8 - width..]);
    }
    match value {
        Value::Nil => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Int(i) if (-32..=127).contains(i) => out.push(*i as u8),
        Value::Int(i) => head(out, 0xd3, *i as u64, 8),
        Value::Uint(u) => head(out, 0xcf, *u, 8),
        Value::Float(f) => head(out, 0xcb, f.to_bits(), 8),
        Value::Str(s) if s.len() < 32 => {
            out.push(0xa0 | s.len() as u8);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Str(s) => {
            head(out, 0xdb, s.len() as u64, 4);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bin(b) => {
            head(out, 0xc6, b.len() as u64, 4);
            out.extend_from_slice(b);
        }
        Value::Array(items) => {
            head(out, 0xdd, items.len() as u64, 4);
            items.iter().for_each(|v| pack(v, out));
        }
        Value::Map(fields) => {
            head(out, 0xdf, fields.len() as u64, 4);
            for (k, v) in fields {
                pack(&Value::Str(k.clone()), out);
                pack(v, out);
            }
        }
    }
}

/// Messages from stdin, each as soon as its bytes are in.
pub struct Reader {
    buf: Vec<u8>,
    pos: usize,
}

impl Reader {
    pub fn new() -> Reader {
        Reader { buf: Vec::new(), pos: 0 }
    }

    /// The next message; None at end of input.
    pub fn next(&mut self) -> io::Result<Option<Value>> {
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            match unpack(&self.buf[self.pos..]) {
                Ok((message, used)) => {
                    self.pos += used;
                    return Ok(Some(message));
                }
                Err(Error::Bad(b)) => {
                    let text = format!("msgpack type {b:#04x} is not part of the protocol");
                    return Err(io::Error::new(io::ErrorKind::InvalidData, text));
                }
                Err(Error::Incomplete) => {}
            }
            self.buf.drain(..self.pos);
            self.pos = 0;
            let got = io::stdin().lock().read(&mut chunk)?;
            if got == 0 {
                return Ok(None);
            }
            self.buf.extend_from_slice(&chunk[..got]);
        }
    }
}

/// Write one message whole to stdout.
pub fn send(message: &Value) -> io::Result<()> {
    let mut bytes = Vec::new();
    pack(message, &mut bytes);
    let mut out = io::stdout().lock();
    out.write_all(&bytes)?;
    out.flush()
}

/// A map from (key, value) pairs: `map(&[("type", Value::Str("move".into())), ...])`.
pub fn map(fields: &[(&str, Value)]) -> Value {
    Value::Map(fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}
