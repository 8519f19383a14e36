//! Findings: what is wrong with a file, at which line, how badly. Every layer that notices
//! damage produces these; `check` lists them all, other commands print the load-time ones
//! as warnings on stderr.

use serde::Serialize;

use crate::model::OwnedId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Finding codes. The spellings are part of the JSON contract: never rename one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    // Framing and JSON.
    TornLastLine,
    CorruptLastLine,
    CorruptLine,
    InvalidUtf8,
    NotAnObject,
    DuplicateKey,
    NumberOutOfRange,
    NestingTooDeep,
    LoneSurrogate,
    ByteOrderMark,
    BlankLines,
    // Entries.
    MissingId,
    InvalidId,
    MissingField,
    InvalidField,
    InvalidTimestamp,
    InvalidUsage,
    UsageOverflow,
    TimestampOutOfOrder,
    UnknownKind,
    UnknownRole,
    UnknownBlock,
    UnknownObs,
    MissingHeader,
    MisplacedHeader,
    InvalidSessionId,
    // The tree.
    DuplicateId,
    DanglingParent,
    SelfParent,
    Cycle,
    MultipleRoots,
    CompactionTargetNotAncestor,
    CompactionKeptNotOnPath,
    // Conversation lint.
    ToolCallWithoutResult,
    ToolResultWithoutCall,
    // Usage.
    InheritedUsage,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        use Code::*;
        match self {
            TornLastLine => "torn_last_line",
            CorruptLastLine => "corrupt_last_line",
            CorruptLine => "corrupt_line",
            InvalidUtf8 => "invalid_utf8",
            NotAnObject => "not_an_object",
            DuplicateKey => "duplicate_key",
            NumberOutOfRange => "number_out_of_range",
            NestingTooDeep => "nesting_too_deep",
            LoneSurrogate => "lone_surrogate",
            ByteOrderMark => "byte_order_mark",
            BlankLines => "blank_lines",
            MissingId => "missing_id",
            InvalidId => "invalid_id",
            MissingField => "missing_field",
            InvalidField => "invalid_field",
            InvalidTimestamp => "invalid_timestamp",
            InvalidUsage => "invalid_usage",
            UsageOverflow => "usage_overflow",
            TimestampOutOfOrder => "timestamp_out_of_order",
            UnknownKind => "unknown_kind",
            UnknownRole => "unknown_role",
            UnknownBlock => "unknown_block",
            UnknownObs => "unknown_obs",
            MissingHeader => "missing_header",
            MisplacedHeader => "misplaced_header",
            InvalidSessionId => "invalid_session_id",
            DuplicateId => "duplicate_id",
            DanglingParent => "dangling_parent",
            SelfParent => "self_parent",
            Cycle => "cycle",
            MultipleRoots => "multiple_roots",
            CompactionTargetNotAncestor => "compaction_target_not_ancestor",
            CompactionKeptNotOnPath => "compaction_kept_not_on_path",
            ToolCallWithoutResult => "tool_call_without_result",
            ToolResultWithoutCall => "tool_result_without_call",
            InheritedUsage => "inherited_usage",
        }
    }

    /// The severity a finding of this code has without `--strict`.
    pub fn severity(self) -> Severity {
        use Code::*;
        match self {
            CorruptLine
            | InvalidUtf8
            | NotAnObject
            | DuplicateKey
            | NumberOutOfRange
            | NestingTooDeep
            | InvalidUsage
            | MissingId
            | InvalidId
            | MissingField
            | InvalidField
            | DuplicateId
            | DanglingParent
            | SelfParent
            | Cycle
            | CompactionTargetNotAncestor => Severity::Error,
            TornLastLine
            | CorruptLastLine
            | LoneSurrogate
            | ByteOrderMark
            | BlankLines
            | InvalidTimestamp
            | UsageOverflow
            | TimestampOutOfOrder
            | UnknownKind
            | UnknownRole
            | UnknownBlock
            | UnknownObs
            | MissingHeader
            | MisplacedHeader
            | InvalidSessionId
            | MultipleRoots
            | CompactionKeptNotOnPath
            | ToolCallWithoutResult
            | ToolResultWithoutCall
            | InheritedUsage => Severity::Warning,
        }
    }

    /// Damage to a line itself (as opposed to a problem with what a valid line says):
    /// these make the line unreadable, and before the last line they make a command exit 2.
    /// `InvalidField` belongs here: a field of the wrong type fails the line's decode, so
    /// the entry is dropped just like a corrupt line's (BAD-INPUTS.md: E naming the field).
    /// So does `MissingField`: the entry is kept (a missing parent reads as a root), but the
    /// line does not say what an entry must, and BAD-INPUTS.md asks for an error there too.
    /// `DuplicateKey` and `NumberOutOfRange` in a payload leave the entry readable (views show
    /// it, with the anomaly marked), but parsers disagree on what such a line says.
    pub fn is_line_damage(self) -> bool {
        use Code::*;
        matches!(
            self,
            CorruptLine
                | InvalidUtf8
                | NotAnObject
                | DuplicateKey
                | NumberOutOfRange
                | NestingTooDeep
                | MissingId
                | InvalidId
                | InvalidField
                | MissingField
        )
    }

    /// Something serde_json reads without complaint but no view can show as written: views
    /// that show the entry mark it beside it.
    pub fn is_hidden_by_parsers(self) -> bool {
        matches!(self, Code::DuplicateKey | Code::NumberOutOfRange)
    }

    /// Findings only `check` reports; other commands stay quiet about them.
    pub fn is_lint(self) -> bool {
        use Code::*;
        matches!(
            self,
            ToolCallWithoutResult
                | ToolResultWithoutCall
                | CompactionTargetNotAncestor
                | CompactionKeptNotOnPath
                | InvalidSessionId
                | BlankLines
        )
    }
}

/// One problem found in a file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub code: Code,
    /// 1-based line, when the finding is about a line.
    pub line: Option<u32>,
    /// 1-based byte column within the line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The entry the finding is about, with its JSON type.
    pub id: Option<OwnedId>,
    pub message: String,
}

impl Finding {
    pub fn new(code: Code, line: Option<u32>, message: impl Into<String>) -> Finding {
        Finding { severity: code.severity(), code, line, column: None, id: None, message: message.into() }
    }

    pub fn at(code: Code, line: u32, column: Option<u32>, message: impl Into<String>) -> Finding {
        Finding { column, ..Finding::new(code, Some(line), message) }
    }

    pub fn with_id(mut self, id: OwnedId) -> Finding {
        self.id = Some(id);
        self
    }
}
