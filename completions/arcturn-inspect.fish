# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_arcturn_inspect_global_optspecs
    string join \n json color= input-format= strict q/quiet wide no-mmap max-bytes= h/help V/version
end

function __fish_arcturn_inspect_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_arcturn_inspect_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_arcturn_inspect_using_subcommand
    set -l cmd (__fish_arcturn_inspect_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -s V -l version -d 'Print version'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "tree" -d 'Show the whole tree: branches, compactions, labels, the path to the latest entry'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "path" -d 'Print the root-first path to an entry (default: the latest)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "leaves" -d 'List every branch tip (entry without children), in file order'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "show" -d 'Print one entry as stored'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "check" -d 'Check files for damage and inconsistencies; exit 1 when an error is found'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "query" -d 'Run a jq filter over every record of each file, as jq would over NDJSON'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "context" -d 'Show what the model is sent at an entry: compactions folded, stubs, state, tokens'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "export" -d 'Write a Markdown or HTML transcript of the path to an entry'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "trace" -d 'Show the span tree of each run: model calls, tool calls, events, and where the time went'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "stats" -d 'Token and activity statistics for sessions, files and directories'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "sessions" -d 'List the sessions in a directory, newest first, reading only each file\'s head and tail'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "grep" -d 'Search what sessions say (text, thinking, tool calls and results), decoded, with a regex'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "diff" -d 'Compare two branches of a session: their common ancestor, each side\'s entries, retried prompts side by side, totals'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "rows" -d 'Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "audit" -d 'Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "redact" -d 'Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind]'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l collapse -d 'Fold linear runs longer than N entries into `... N entries ...`' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand tree" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand path" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand leaves" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand show" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand check" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l arg -d 'Bind $NAME to the string VALUE (repeatable)' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l argjson -d 'Bind $NAME to the JSON value TEXT (repeatable)' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l indent -d 'Indent with N spaces (0-7; 0 is compact). Default 2' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s f -l from-file -d 'Read the filter from FILE; every positional argument is then an input file' -r -F
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l path -d 'Only the root-first path to ID (default: the latest entry). Write `--path=ID`' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l kind -d 'Only records of this kind: message, compaction, state, label, obs; `session`/`meta` for the header' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s r -l raw-output -d 'Write strings without quotes or escapes (raw text)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s j -l join-output -d 'Like -r, and no newline after each output'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s c -l compact-output -d 'One line per output instead of indented JSON'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s s -l slurp -d 'Run the filter once, on an array of all inputs of all files'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s n -l null-input -d 'Run the filter once with `null` as input; read records with `input`/`inputs`'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s e -l exit-status -d 'Exit 1 if the last output was false or null, 4 if there was no output'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l tab -d 'Indent with a tab'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s S -l sort-keys -d 'Sort object keys in the output'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l leaves -d 'Only the branch tips (entries without children), in file order'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand query" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand context" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -s o -l output -d 'Write to PATH instead of stdout (never to the session file or its directory)' -r -F
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l html -d 'Write one self-contained HTML file instead of Markdown'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -s O -l auto-name -d 'Write arcturn-session-<yyyy-MM-dd-HHmm>.md (or .html) in the current directory, named from the session\'s creation time (UTC)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l force -d 'Overwrite the file -O names when it already exists'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l thinking -d 'Include thinking blocks'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l as-sent -d 'Export what the model is sent at the entry (the `context` view) instead of the full path'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l redact -d 'Replace every secret `audit` finds with [REDACTED:kind] in the transcript'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand export" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l run -d 'Only the run with this id (crab run_id, or an arcturn user message id or unique prefix)' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l leaf -d 'arcturn: trace the branch to this entry instead of the latest one' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l errors -d 'Only runs that have a failing span'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand trace" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l by -d 'Group the summary table (default: the full report for one session, a row per session for several). With --json: {"by", "rows": [{"key", "usage"}], "total": {"usage"}}' -r -f -a "day\t'A row per day of the model calls (in --timezone)'
week\t'A row per ISO week of the model calls (`2026-W48`, in --timezone)'
month\t'A row per month of the model calls (in --timezone)'
session\t'A row per session file, plus totals'
model\t'A row per model (provider/model), summed over every input'
project\t'A row per project: the session\'s working directory, else its agent folder\'s project'
agent\t'A row per agent (session format: claude, codex, pi, arcturn, crab)'
tool\t'A row per tool: calls, errors, and the usage of the model calls that issued it'"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l since -d 'Count only model calls at or after WHEN: a date (2026-11-30, from its start), a date-time (2026-11-30T14:00, or with Z / +01:00), or relative (7d, 12h, 30m, 2w ago). Calls without a timestamp are left out (and counted) when a window is set' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l until -d 'Count only model calls before WHEN (exclusive); a bare date includes that whole day' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l timezone -d 'Time zone of dates, --since/--until and day/week/month rows: an IANA name (Europe/Berlin) or UTC. Default: the local zone' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l prices -d 'Price calls that recorded no cost with this table instead of the bundled one (same JSON shape as data/prices.json: {"models": {"NAME": {"input", "output", "cache_read", "cache_write", "above"}}}, dollars per million tokens)' -r -F
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l max-tokens -d 'CI gate: exit 1 when a session used more tokens than this (file scope: input, output, cache read and cache write)' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l max-cost -d 'CI gate: exit 1 when a session\'s cost (recorded or estimated from the price table) is above this many dollars' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l agent -d 'Only sessions of this agent' -r -f -a "arcturn\t''
crab\t''
pi\t''
claude\t''
codex\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l sort -d 'Order of the list' -r -f -a "created\t'Creation time, newest first'
activity\t'Last activity, most recent first'
size\t'File size, largest first'"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -s n -l limit -d 'Show at most N sessions' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand sessions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s C -l context -d 'Show N lines of the entry\'s text before and after each match' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l role -d 'Only text of this role (a tool result\'s text has role tool_result)' -r -f -a "user\t''
assistant\t''
tool_result\t''
system\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l tool -d 'Only the arguments of calls to tool NAME and the results of those calls' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s M -l max-columns -d 'Cut printed lines longer than N characters around the first match (0: never cut)' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s i -l ignore-case -d 'Case-insensitive match'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s w -l word-regexp -d 'Only whole words: the match is preceded and followed by a non-word character or an edge'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s F -l fixed-strings -d 'The pattern is literal text, not a regex'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s l -l files-with-matches -d 'Print only the names of files with a match'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s c -l count -d 'Print only the number of match groups per file with a match'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand grep" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand diff" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l table -d 'Which table to write' -r -f -a "entries\t'A row per tree entry (message, compaction, label, state)'
calls\t'A row per model call, with its tokens and cost'
tools\t'A row per tool call, paired with its result'
spans\t'A row per trace run and per span (model call, tool call, event) of it'
sessions\t'A row per session file, with the totals of `stats`'"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand rows" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l allow -d 'Fingerprints of accepted findings, one per line (`#` starts a comment)' -r -F
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l list-kinds -d 'List the kinds of secret found, with a description, and exit'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand audit" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -s o -l output -d 'Where to write the redacted copy (never the input)' -r -F
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l color -d 'When to colour human output' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l input-format -d 'Skip format detection' -r -f -a "arcturn\t''
crab\t''
pi\t''
codex\t''
claude\t''"
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l max-bytes -d 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024' -r
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l force -d 'Replace OUT when it exists'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l json -d 'Machine output: one JSON document per input (NDJSON when several)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l strict -d 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -s q -l quiet -d 'No warnings on stderr'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l wide -d 'Human output: print every line and text whole instead of fitting it to the terminal\'s width (`COLUMNS`, else the terminal\'s, else 120 columns)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -l no-mmap -d 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand redact" -s h -l help -d 'Print help'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "tree" -d 'Show the whole tree: branches, compactions, labels, the path to the latest entry'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "path" -d 'Print the root-first path to an entry (default: the latest)'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "leaves" -d 'List every branch tip (entry without children), in file order'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "show" -d 'Print one entry as stored'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "check" -d 'Check files for damage and inconsistencies; exit 1 when an error is found'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "query" -d 'Run a jq filter over every record of each file, as jq would over NDJSON'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "context" -d 'Show what the model is sent at an entry: compactions folded, stubs, state, tokens'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "export" -d 'Write a Markdown or HTML transcript of the path to an entry'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "trace" -d 'Show the span tree of each run: model calls, tool calls, events, and where the time went'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "stats" -d 'Token and activity statistics for sessions, files and directories'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "sessions" -d 'List the sessions in a directory, newest first, reading only each file\'s head and tail'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "grep" -d 'Search what sessions say (text, thinking, tool calls and results), decoded, with a regex'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "diff" -d 'Compare two branches of a session: their common ancestor, each side\'s entries, retried prompts side by side, totals'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "rows" -d 'Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "audit" -d 'Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "redact" -d 'Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind]'
complete -c arcturn-inspect -n "__fish_arcturn_inspect_using_subcommand help; and not __fish_seen_subcommand_from tree path leaves show check query context export trace stats sessions grep diff rows audit redact help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
