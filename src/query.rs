//! The jq language over session records, through jaq's library crates (jaq-core, jaq-std,
//! jaq-json): compiling a filter with errors that carry their position, choosing which lines
//! of a session are the inputs, and running the filter over a stream of records the way jq
//! runs over NDJSON.
//!
//! This module decides nothing about presentation: outputs, runtime errors and the inputs'
//! origins are handed to callbacks, and the `cmd` layer prints them.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::native::{run, v, Fun};
use jaq_core::{compile, load, Ctx, DataT, Vars};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};

use crate::error::Result;
use crate::finding::Code;
use crate::session::Session;

/// Where an input came from: the file as the user named it, and the 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: Rc<str>,
    pub line: u32,
}

/// One input of the filter.
pub struct Record {
    pub value: Val,
    pub origin: Origin,
}

/// The type-level description of the data our filters run on (see [`jaq_core::DataT`]).
pub struct Data;

/// What every native filter can reach while the filter runs: the compiled program, the
/// shared input stream (`input`, `inputs`), and the origin of the input read last.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    lut: &'a jaq_core::Lut<Data>,
    inputs: Inputs<'a, Val>,
    current: &'a RefCell<Option<Origin>>,
}

impl DataT for Data {
    type V<'a> = Val;
    type Data<'a> = Env<'a>;
}

impl<'a> jaq_core::data::HasLut<'a, Data> for Env<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<Data> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for Env<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

/// Variables every filter can use besides the `--arg`/`--argjson` ones. `$__file` and
/// `$__line` are bound anew for every input.
const BUILTIN_VARS: [&str; 4] = ["$ENV", "$ARGS", "$__file", "$__line"];

/// A compile error, positioned in the filter text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub message: String,
    /// 1-based line and column (in characters) of the offending text.
    pub line: usize,
    pub column: usize,
    /// Byte range of the offending text in the filter.
    pub span: Range<usize>,
}

/// A compiled filter, ready to run over any number of inputs.
pub struct Program {
    filter: jaq_core::Filter<Data>,
    /// Names (without `$`) and values of the `--arg`/`--argjson` variables, in order.
    named: Vec<(String, Val)>,
}

/// The native filters jq has and jaq's libraries leave to the program: reading inputs and
/// telling where the input read last came from.
fn io_funs() -> impl Iterator<Item = Fun<Data>> {
    let origin: [jaq_core::native::Filter<jaq_core::RunPtr<Data>>; 2] = [
        ("input_filename", v(0), |cv| {
            let o = cv.0.data().current.borrow().as_ref().map(|o| Val::from(o.file.to_string()));
            Box::new(std::iter::once(Ok(o.unwrap_or(Val::Null))))
        }),
        ("input_line_number", v(0), |cv| {
            let o = cv.0.data().current.borrow().as_ref().map(|o| Val::from(o.line as usize));
            Box::new(std::iter::once(Ok(o.unwrap_or(Val::Null))))
        }),
    ];
    jaq_std::input::funs::<Data>().into_vec().into_iter().chain(origin).map(run::<Data>)
}

/// `tojson` as jq 1.7 has it: always JSON text. jaq writes NaN and the infinities as
/// `NaN`/`Infinity`, which no JSON parser reads; jq writes them as it prints them, `null` and
/// the largest finite double. (Compiled ahead of jaq's own, and `tostring` is redefined on it
/// below; string interpolation `"\(nan)"` is jaq's and still says `NaN`.)
fn json_funs() -> impl Iterator<Item = Fun<Data>> {
    let f: [jaq_core::native::Filter<jaq_core::RunPtr<Data>>; 1] = [("tojson", v(0), |cv| {
        // With no NaN or infinity left, jaq's display of a value is its JSON text.
        Box::new(std::iter::once(Ok(Val::utf8_str(json_safe(&cv.1).to_string()))))
    })];
    f.into_iter().map(run::<Data>)
}

/// jq's `tostring`, on the `tojson` above.
const JQ_DEFS: &str = r#"def tostring: if type == "string" then . else tojson end;"#;

/// A value with what JSON cannot hold replaced as jq 1.7 prints it: NaN as `null`, an
/// infinity as the largest finite double of its sign.
pub fn json_safe(v: &Val) -> Val {
    match v {
        Val::Num(jaq_json::Num::Float(f)) if f.is_nan() => Val::Null,
        Val::Num(jaq_json::Num::Float(f)) if f.is_infinite() => Val::from(f.signum() * f64::MAX),
        Val::Arr(a) => Val::Arr(Rc::new(a.iter().map(json_safe).collect())),
        Val::Obj(o) => Val::Obj(Rc::new(o.iter().map(|(k, v)| (json_safe(k), json_safe(v))).collect())),
        v => v.clone(),
    }
}

/// Compile `code`. `named` are the `--arg`/`--argjson` variables (names without `$`).
pub fn compile(code: &str, named: Vec<(String, Val)>) -> std::result::Result<Program, Vec<CompileError>> {
    let arena = Arena::default();
    let ours = load::parse(JQ_DEFS, |p| p.defs()).unwrap_or_default();
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs()).chain(ours);
    let loader = Loader::new(defs);
    let modules = loader.load(&arena, File { code, path: () }).map_err(|errs| load_errors(code, errs))?;
    // The first native of a name wins: ours come first.
    let funs = json_funs().chain(jaq_core::funs()).chain(jaq_std::funs()).chain(jaq_json::funs()).chain(io_funs());
    let var_names: Vec<String> = named.iter().map(|(n, _)| format!("${n}")).collect();
    let globals = var_names.iter().map(String::as_str).chain(BUILTIN_VARS);
    let filter = jaq_core::Compiler::default()
        .with_funs(funs)
        .with_global_vars(globals)
        .compile(modules)
        .map_err(|errs| compile_errors(code, errs))?;
    Ok(Program { filter, named })
}

/// Names whose meaning reaches past the input at hand: reading the next inputs (`input`,
/// `inputs`), stopping the whole run (`halt`, `halt_error`), writing to stderr as a side
/// effect (`debug`, `stderr`), code from elsewhere that could do any of these (`import`,
/// `include`), and the filter's own position (`$__loc__`, harmless, but jq programs that
/// ask for it are debugging).
const ACROSS_INPUTS: [&str; 10] =
    ["input", "inputs", "halt", "halt_error", "debug", "debug_empty", "stderr", "stderr_empty", "import", "include"];

/// Whether `code` can run on each input by itself, so that inputs may be shared out to
/// threads and the outputs put back in order with no difference to see. Decided on the
/// filter's tokens, conservatively: any word in [`ACROSS_INPUTS`] (as a call, a definition
/// or an object key alike; `.input` is a field and does not count), a module path, or
/// `$__loc__` anywhere, interpolations included, says no.
pub fn per_input(code: &str) -> bool {
    use jaq_core::load::lex::{StrPart, Tok, Token};
    fn across(t: &Token<&str>) -> bool {
        match &t.1 {
            Tok::Word => t.0.contains("::") || ACROSS_INPUTS.contains(&t.0),
            Tok::Var => t.0 == "$__loc__",
            Tok::Block(inner) => inner.iter().any(across),
            Tok::Str(parts) => parts.iter().any(|p| matches!(p, StrPart::Term(t) if across(t))),
            Tok::Fmt | Tok::Num | Tok::Sym => false,
        }
    }
    match jaq_core::load::Lexer::new(code).lex() {
        Ok(tokens) => !tokens.iter().any(across),
        Err(_) => false,
    }
}

fn position(code: &str, part: &str) -> (Range<usize>, usize, usize) {
    // Parts are slices of `code`; an empty part at the end means "end of input".
    let span = if part.is_empty() && !code.as_bytes().as_ptr_range().contains(&part.as_ptr()) {
        code.len()..code.len()
    } else {
        load::span(code, part)
    };
    let before = &code[..span.start];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (span, line, column)
}

fn found(part: &str) -> String {
    match part.chars().next() {
        None => "found the end of the filter".into(),
        Some(_) => {
            let shown: String = part.chars().take(20).collect();
            format!("found `{}`", crate::sanitize::inline(&shown))
        }
    }
}

fn error_at(code: &str, part: &str, message: String) -> CompileError {
    let (span, line, column) = position(code, part);
    CompileError { message, line, column, span }
}

fn load_errors(code: &str, errs: load::Errors<&str, ()>) -> Vec<CompileError> {
    let mut out = Vec::new();
    for (_file, err) in errs {
        match err {
            load::Error::Io(errs) => {
                for (path, e) in errs {
                    out.push(error_at(code, path, format!("cannot load module `{path}`: {e}")));
                }
            }
            load::Error::Lex(errs) => {
                for (expected, part) in errs {
                    // Only the first character is at fault, not the rest of the filter.
                    let first = part.char_indices().nth(1).map_or(part, |(i, _)| &part[..i]);
                    let msg = format!("expected {}, {}", expected.as_str(), found(first));
                    out.push(error_at(code, first, msg));
                }
            }
            load::Error::Parse(errs) => {
                for (expected, part) in errs {
                    let msg = format!("expected {}, {}", expected.as_str(), found(part));
                    out.push(error_at(code, part, msg));
                }
            }
        }
    }
    out
}

fn compile_errors(code: &str, errs: compile::Errors<&str, ()>) -> Vec<CompileError> {
    let mut out = Vec::new();
    for (_file, errs) in errs {
        for (part, undefined) in errs {
            let msg = match undefined {
                compile::Undefined::Filter(arity) => format!("undefined filter `{part}/{arity}`"),
                u => format!("undefined {} `{part}`", u.as_str()),
            };
            out.push(error_at(code, part, msg));
        }
    }
    out
}

/// How the filter is fed.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// `-n`: run once with `null` as input; records are left to `input`/`inputs`.
    pub null_input: bool,
    /// `-s`: run once with every record in one array.
    pub slurp: bool,
}

/// How a run ended, when it was not stopped by a failed write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    pub outputs: u64,
    /// Truthiness of the last output (for `-e`).
    pub last_truthy: Option<bool>,
    /// Inputs whose run stopped at an error.
    pub errors: u64,
    /// `halt`/`halt_error` asked for this exit status.
    pub halt: Option<i32>,
}

impl Program {
    /// Run over `records`. Each output goes to `emit`; a runtime error goes to `on_error`
    /// with the origin of the input it happened on, and the run goes on with the next input
    /// (as jq does). A failed `emit` stops the run and is returned.
    pub fn run<I, E>(
        &self,
        records: I,
        opts: RunOptions,
        mut emit: E,
        mut on_error: impl FnMut(&str, Option<&Origin>),
    ) -> std::io::Result<RunSummary>
    where
        I: Iterator<Item = Record>,
        E: FnMut(&Val) -> std::io::Result<()>,
    {
        let current: RefCell<Option<Origin>> = RefCell::new(None);
        let stream = records.map(|r| {
            *current.borrow_mut() = Some(r.origin);
            Ok::<Val, String>(r.value)
        });
        let stream = RcIter::new(stream);
        let env = Env { lut: &self.filter.lut, inputs: &stream, current: &current };

        let env_var = Val::obj(std::env::vars().map(|(k, v)| (Val::from(k), Val::from(v))).collect());
        let named = Val::obj(self.named.iter().map(|(k, v)| (Val::from(k.clone()), v.clone())).collect());
        let args = Val::obj(
            [
                (Val::from("positional".to_string()), Val::Arr(Rc::new(Vec::new()))),
                (Val::from("named".to_string()), named),
            ]
            .into_iter()
            .collect(),
        );

        let top: Box<dyn Iterator<Item = Val> + '_> = if opts.null_input {
            Box::new(std::iter::once(Val::Null))
        } else if opts.slurp {
            let all: Vec<Val> = (&stream).filter_map(|r| r.ok()).collect();
            *current.borrow_mut() = None;
            Box::new(std::iter::once(Val::Arr(Rc::new(all))))
        } else {
            Box::new((&stream).filter_map(|r| r.ok()))
        };

        let mut summary = RunSummary::default();
        for input in top {
            let origin = current.borrow().clone();
            let (file, line) = match &origin {
                Some(o) => (Val::from(o.file.to_string()), Val::from(o.line as usize)),
                None => (Val::Null, Val::Null),
            };
            let vars = self.named.iter().map(|(_, v)| v.clone()).chain([env_var.clone(), args.clone(), file, line]);
            let ctx = Ctx::<Data>::new(env, Vars::new(vars));
            for out in self.filter.id.run((ctx, input)) {
                match out {
                    Ok(v) if nested_past(&v, MAX_DEPTH) => {
                        summary.errors += 1;
                        on_error(
                            &format!("value nested deeper than {MAX_DEPTH} levels cannot be printed"),
                            origin.as_ref(),
                        );
                        dismantle(v);
                        break;
                    }
                    Ok(v) => {
                        summary.outputs += 1;
                        summary.last_truthy = Some(jaq_core::ValT::as_bool(&v));
                        emit(&v)?;
                    }
                    Err(exn) => match exn.get_err() {
                        Ok(e) => {
                            summary.errors += 1;
                            on_error(&error_text(e), origin.as_ref());
                            break;
                        }
                        Err(exn) => {
                            if let Ok(code) = exn.get_halt() {
                                summary.halt = Some(code);
                                return Ok(summary);
                            }
                            // Other exceptions are jaq's internal control flow; seeing one
                            // here would be a bug in jaq, so report it like an error.
                            summary.errors += 1;
                            on_error("internal error in the filter engine", origin.as_ref());
                            break;
                        }
                    },
                }
            }
        }
        Ok(summary)
    }
}

/// jq shows an error's string as is, and any other value as JSON.
fn error_text(e: jaq_core::Error<Val>) -> String {
    match e.into_val() {
        Val::TStr(s) => String::from_utf8_lossy(&s).into_owned(),
        v => format!("{v} (not a string)"),
    }
}

/// The deepest value a filter may output or read from `--argjson`: jq's parsing limit.
/// Printing walks a value recursively, like jq and jaq do; this bounds the walk.
pub const MAX_DEPTH: usize = 10_000;

/// Whether arrays and objects nest in `v` past `limit` levels (a scalar is level 0), found
/// without recursion.
fn nested_past(v: &Val, limit: usize) -> bool {
    let container = |x: &&Val| matches!(x, Val::Arr(_) | Val::Obj(_));
    let mut stack: Vec<(&Val, usize)> = vec![(v, 1)];
    while let Some((v, level)) = stack.pop() {
        if level > limit {
            return true;
        }
        match v {
            Val::Arr(a) => stack.extend(a.iter().filter(container).map(|x| (x, level + 1))),
            Val::Obj(o) => stack.extend(o.iter().flat_map(|(k, x)| [k, x]).filter(container).map(|x| (x, level + 1))),
            _ => {}
        }
    }
    false
}

/// Drop a value of any depth without recursion (the derived drop recurses once per level,
/// and a filter can nest a value millions of levels deep). Parts shared with other values
/// are left to their other owners.
fn dismantle(v: Val) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Val::Arr(a) => {
                if let Ok(items) = Rc::try_unwrap(a) {
                    stack.extend(items);
                }
            }
            Val::Obj(o) => {
                if let Ok(map) = Rc::try_unwrap(o) {
                    stack.extend(map.into_iter().flat_map(|(k, x)| [k, x]));
                }
            }
            _ => {}
        }
    }
}

/// Parse one line of a session into a filter input. Lone surrogate escapes are repaired the
/// way the loader repairs them (it already warned about them). A line nested past jq's
/// limit is not parsed: the parser recurses per level. (The loader refuses lines nested
/// past its own, lower, limit, so no input comes near this one; checking the loader's
/// limit here again walked every byte of every line with more than 127 brackets, a
/// seventh of the time `query -c .id` spent on a generated file.)
pub fn parse_line(bytes: &[u8]) -> Option<Val> {
    if crate::format::nested_past(bytes, MAX_DEPTH).is_some() {
        return None;
    }
    match crate::format::repair_lone_surrogates(bytes) {
        Some(fixed) => jaq_json::read::parse_single(&fixed).ok(),
        None => jaq_json::read::parse_single(bytes).ok(),
    }
}

/// The fields of a filter that is nothing but a path of object fields (`.id`,
/// `.message.usage`): such a filter sees nothing of its input beyond that path, so its
/// inputs need only the path parsed ([`parse_fields`]). `None` for any other filter.
pub fn field_path(code: &str) -> Option<Vec<String>> {
    let path = code.trim_matches([' ', '\t', '\n', '\r']).strip_prefix('.')?;
    let ident = |f: &&str| {
        let mut chars = f.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let fields: Vec<&str> = path.split('.').collect();
    fields.iter().all(ident).then(|| fields.into_iter().map(str::to_string).collect())
}

/// [`parse_line`] for a filter that reads only `fields` ([`field_path`]): where the line is
/// an object, the input is that object cut down to the path (the last of a repeated key, as
/// the parser keeps), each value on it parsed whole once it is not an object; the filter
/// gives the same outputs and errors as over the whole line. Any line this cannot cut
/// (not an object at the top, text the skimmer declines) is parsed whole.
pub fn parse_fields(bytes: &[u8], fields: &[String]) -> Option<Val> {
    if crate::format::nested_past(bytes, MAX_DEPTH).is_some() {
        return None;
    }
    let fixed = crate::format::repair_lone_surrogates(bytes);
    let bytes = fixed.as_deref().unwrap_or(bytes);
    cut(bytes, fields).or_else(|| jaq_json::read::parse_single(bytes).ok())
}

/// The value in `bytes` cut down to the path `fields`; `None` where the skimmer declines.
fn cut(bytes: &[u8], fields: &[String]) -> Option<Val> {
    let object = bytes.iter().find(|b| !b" \t\r\n".contains(b)) == Some(&b'{');
    let Some((field, rest)) = fields.split_first().filter(|_| object) else {
        return jaq_json::read::parse_single(bytes).ok();
    };
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let found = crate::format::skim::from_str_seed(text, Member(field)).ok()?;
    let mut map = jaq_json::Map::default();
    if let Some(raw) = found {
        map.insert(Val::from(field.clone()), cut(raw.get().as_bytes(), rest)?);
    }
    Some(Val::obj(map))
}

/// The raw text of one member of an object (the last, if the key is repeated).
struct Member<'f>(&'f str);

impl<'de, 'f> serde::de::DeserializeSeed<'de> for Member<'f> {
    type Value = Option<&'de serde_json::value::RawValue>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'f> serde::de::Visitor<'de> for Member<'f> {
    type Value = Option<&'de serde_json::value::RawValue>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<crate::format::de::Str<'de>>()? {
            if key.0 == self.0 {
                found = Some(map.next_value()?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// An input for a filter: cut down to `fields` when that is all it reads.
pub fn parse_input(bytes: &[u8], fields: Option<&[String]>) -> Option<Val> {
    match fields {
        Some(f) => parse_fields(bytes, f),
        None => parse_line(bytes),
    }
}

/// Parse a `--argjson` value.
pub fn parse_json_arg(text: &str) -> std::result::Result<Val, String> {
    if let Some(col) = crate::format::nested_past(text.as_bytes(), MAX_DEPTH) {
        return Err(format!("nesting too deep at column {col} (limit {MAX_DEPTH})"));
    }
    jaq_json::read::parse_single(text.as_bytes()).map_err(|e| e.to_string())
}

/// Which lines of a session are the filter's inputs.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// `--path [ID]`: the root-first path to ID (`Some(None)`: to the latest entry).
    pub path: Option<Option<String>>,
    /// `--leaves`: the branch tips.
    pub leaves: bool,
    /// `--kind K`: only records whose `kind` (or `type`) is K.
    pub kind: Option<String>,
}

/// One chosen line: its number and its bytes' range in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    pub line: u32,
    pub span: Range<usize>,
}

/// The lines to run over, in file order. Without `--path`/`--leaves` that is every record
/// the loader accepted but the session header; with them, the chosen entries. `--kind` then
/// keeps one kind, and `--kind session` / `--kind meta` selects the header itself. A line the
/// loader refused is never an input, even when a laxer parser (jaq reads `NaN`) would take
/// it: it was reported, and the command exits 2 at the end.
pub fn select(s: &Session<'_>, sel: &Selection) -> Result<Vec<Pick>> {
    let mut picks: Vec<Pick> = if let Some(target) = &sel.path {
        let t = s.target(target.as_deref())?;
        s.tree.path(t).into_iter().map(|i| pick(s, i)).collect()
    } else if sel.leaves {
        s.tree.leaves().map(|i| pick(s, i)).collect()
    } else {
        let header = s.header.as_ref().map(|h| h.line);
        let refused = refused_lines(s);
        s.source
            .lines()
            .filter(|l| Some(l.number) != header || sel.kind.is_some())
            .filter(|l| !refused.contains(&l.number))
            .filter(|l| !s.source.bytes()[l.span.clone()].iter().all(u8::is_ascii_whitespace))
            .map(|l| Pick { line: l.number, span: l.span })
            .collect()
    };
    if let Some(kind) = &sel.kind {
        let bytes = s.source.bytes();
        picks.retain(|p| record_kind(&bytes[p.span.clone()]).as_deref() == Some(kind.as_str()));
    }
    Ok(picks)
}

/// Lines with damage that yielded no record (an entry with a missing field, or a payload
/// with a duplicate key, is kept by the loader and stays an input).
fn refused_lines(s: &Session<'_>) -> std::collections::HashSet<u32> {
    let kept: std::collections::HashSet<u32> = s
        .entries
        .iter()
        .map(|e| e.line)
        .chain(s.observations.iter().map(|o| o.line))
        .chain(s.header.as_ref().map(|h| h.line))
        .collect();
    s.findings
        .iter()
        .filter(|f| f.code.is_line_damage() || matches!(f.code, Code::TornLastLine | Code::CorruptLastLine))
        .filter_map(|f| f.line)
        .filter(|l| !kept.contains(l))
        .collect()
}

fn pick(s: &Session<'_>, i: crate::tree::Ix) -> Pick {
    let e = s.entry(i);
    Pick { line: e.line, span: e.span() }
}

/// The `kind` (or pi's `type`) of a record, read without decoding the rest of the line.
fn record_kind(line: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: Option<String>,
        #[serde(rename = "type")]
        typ: Option<String>,
    }
    let k: Kind = serde_json::from_slice(line).ok()?;
    k.kind.or(k.typ)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_all(code: &str, inputs: &[&str], opts: RunOptions) -> (Vec<String>, Vec<String>, RunSummary) {
        let p = compile(code, Vec::new()).expect("compiles");
        let records = inputs.iter().enumerate().map(|(i, s)| Record {
            value: parse_line(s.as_bytes()).unwrap(),
            origin: Origin { file: Rc::from("t.jsonl"), line: i as u32 + 2 },
        });
        let mut outs = Vec::new();
        let mut errs = Vec::new();
        let summary = p
            .run(
                records,
                opts,
                |v| {
                    outs.push(v.to_string());
                    Ok(())
                },
                |m, o| errs.push(format!("{}:{}", m, o.map_or(0, |o| o.line))),
            )
            .unwrap();
        (outs, errs, summary)
    }

    #[test]
    fn runs_over_each_input_and_binds_line_numbers() {
        let (outs, _, s) =
            run_all("[.a, $__line, input_filename]", &[r#"{"a":1}"#, r#"{"a":2}"#], RunOptions::default());
        assert_eq!(outs, ["[1,2,\"t.jsonl\"]", "[2,3,\"t.jsonl\"]"]);
        assert_eq!(s.outputs, 2);
        assert_eq!(s.last_truthy, Some(true));
    }

    #[test]
    fn slurp_and_null_input() {
        let ins = [r#"{"a":1}"#, r#"{"a":2}"#, r#"{"a":4}"#];
        let (outs, _, _) = run_all("map(.a) | add", &ins, RunOptions { slurp: true, null_input: false });
        assert_eq!(outs, ["7"]);
        let (outs, _, _) =
            run_all("reduce inputs as $e (0; . + $e.a)", &ins, RunOptions { null_input: true, slurp: false });
        assert_eq!(outs, ["7"]);
    }

    #[test]
    fn runtime_error_stops_only_that_input() {
        let (outs, errs, s) = run_all(".a + 1", &[r#"{"a":"x"}"#, r#"{"a":2}"#], RunOptions::default());
        assert_eq!(outs, ["3"]);
        assert_eq!(s.errors, 1);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].ends_with(":2"), "{errs:?}");
        let (_, errs, _) = run_all(r#"error("boom")"#, &["{}"], RunOptions::default());
        assert_eq!(errs, ["boom:2"]);
    }

    #[test]
    fn per_input_filters_are_told_from_those_reaching_other_inputs() {
        for code in [
            ".id",
            "select(.kind == \"message\") | .message.content[].input",
            "{a: .inputs}",
            "\"input\"",
            "[$__file, $__line, input_filename, input_line_number]",
        ] {
            assert!(per_input(code), "{code}");
        }
        for code in [
            "input",
            "[., input]",
            "first(inputs)",
            "limit(2; inputs)",
            "\"\\(input)\"",
            "halt",
            "halt_error(1)",
            "debug",
            "debug(.id)",
            "stderr",
            "$__loc__",
            "{input}",
            "def inputs: 1; .",
            "import \"m\" as m; .",
            "m::f",
            "[.[] | (input)]",
        ] {
            assert!(!per_input(code), "{code}");
        }
    }

    #[test]
    fn field_paths_are_told_from_other_filters() {
        let ok: [(&str, &[&str]); 4] = [
            (".id", &["id"]),
            (".message.usage", &["message", "usage"]),
            (" .a_b.C9\n", &["a_b", "C9"]),
            ("._.__loc__", &["_", "__loc__"]),
        ];
        for (code, fields) in ok {
            assert_eq!(
                field_path(code).as_deref(),
                Some(fields.iter().map(|f| f.to_string()).collect::<Vec<_>>()).as_deref(),
                "{code}"
            );
        }
        for code in [
            ".", "..", ".a.", ".a..b", ".a[]", ".a?", ".[\"a\"]", ". a", ".a | .b", ".1a", ".é", "$x", ".a #c", "a",
            ".a.b[0]", "",
        ] {
            assert_eq!(field_path(code), None, "{code}");
        }
    }

    /// Outputs and errors of `code` over one input, each as text.
    fn over(code: &str, input: Val) -> Vec<String> {
        let p = compile(code, Vec::new()).expect("compiles");
        let record = Record { value: input, origin: Origin { file: Rc::from("t.jsonl"), line: 2 } };
        let mut seen = Vec::new();
        let errs = RefCell::new(Vec::new());
        p.run(
            std::iter::once(record),
            RunOptions::default(),
            |v| {
                seen.push(v.to_string());
                Ok(())
            },
            |m, _| errs.borrow_mut().push(format!("error: {m}")),
        )
        .unwrap();
        seen.extend(errs.into_inner());
        seen
    }

    #[test]
    fn a_cut_input_gives_what_the_whole_line_gives() {
        // The whole line parsed by jaq is the reference: the cut must change nothing a
        // path filter can see, errors included.
        let lines = [
            r#"{"a":{"b":{"c":1,"d":[2]},"e":"x"},"f":null}"#,
            r#"{"a":1,"a":{"b":2}}"#,
            r#"{"a":{"b":1},"a":{"c":2}}"#,
            r#"{"\u0061":{"b\u0020":3,"b":"\ud83d\ude00 é"}}"#,
            r#"{"a":"text"}"#,
            r#"{"a":[1,{"b":2}]}"#,
            r#"{"a":{"b":"lone \ud800 surrogate"}}"#,
            r#"  { "a" : { "b" : 1.50 , "c" : 1e2 } , "z" : 123456789012345678901234567890 }  "#,
            r#"{"a":{"b":-0.0,"c":{"d":{}}}}"#,
            r#"{}"#,
            r#"[1,2]"#,
            r#""a string""#,
            r#"null"#,
            r#"42"#,
            r#"{"a":null}"#,
            r#"{"a":{"b":true,"b":false}}"#,
        ];
        for line in lines {
            for code in [".a", ".a.b", ".a.b.c", ".a.c", ".z", ".missing", ".missing.deeper", ".f.x"] {
                let fields = field_path(code).unwrap();
                let whole = parse_line(line.as_bytes()).expect("parses whole");
                let cut = parse_fields(line.as_bytes(), &fields).expect("parses cut");
                assert_eq!(over(code, cut), over(code, whole), "{code} over {line}");
            }
        }
    }

    #[test]
    fn compile_errors_are_positioned() {
        let e = compile(".a |\n  lenght", Vec::new()).err().unwrap();
        assert_eq!((e[0].line, e[0].column), (2, 3));
        assert!(e[0].message.contains("lenght"), "{}", e[0].message);
        let e = compile(".a | (", Vec::new()).err().unwrap();
        assert_eq!(e[0].line, 1);
        let e = compile("$nope", Vec::new()).err().unwrap();
        assert!(e[0].message.contains("variable"), "{}", e[0].message);
    }

    #[test]
    fn named_args_are_variables() {
        let p = compile("[$x, $ARGS.named.x]", vec![("x".into(), Val::from("v".to_string()))]).unwrap();
        let mut outs = Vec::new();
        p.run(
            std::iter::empty(),
            RunOptions { null_input: true, slurp: false },
            |v| {
                outs.push(v.to_string());
                Ok(())
            },
            |_, _| {},
        )
        .unwrap();
        assert_eq!(outs, ["[\"v\",\"v\"]"]);
    }
}
