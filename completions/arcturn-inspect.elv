
use builtin;
use str;

set edit:completion:arg-completer[arcturn-inspect] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'arcturn-inspect'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'arcturn-inspect'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand tree 'Show the whole tree: branches, compactions, labels, the path to the latest entry'
            cand path 'Print the root-first path to an entry (default: the latest)'
            cand leaves 'List every branch tip (entry without children), in file order'
            cand show 'Print one entry as stored'
            cand check 'Check files for damage and inconsistencies; exit 1 when an error is found'
            cand query 'Run a jq filter over every record of each file, as jq would over NDJSON'
            cand context 'Show what the model is sent at an entry: compactions folded, stubs, state, tokens'
            cand export 'Write a Markdown or HTML transcript of the path to an entry'
            cand trace 'Show the span tree of each run: model calls, tool calls, events, and where the time went'
            cand stats 'Token and activity statistics for sessions, files and directories'
            cand sessions 'List the sessions in a directory, newest first, reading only each file''s head and tail'
            cand grep 'Search what sessions say (text, thinking, tool calls and results), decoded, with a regex'
            cand diff 'Compare two branches of a session: their common ancestor, each side''s entries, retried prompts side by side, totals'
            cand rows 'Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions'
            cand audit 'Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found'
            cand redact 'Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind]'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'arcturn-inspect;tree'= {
            cand --collapse 'Fold linear runs longer than N entries into `... N entries ...`'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;path'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;leaves'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;show'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;check'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;query'= {
            cand --arg 'Bind $NAME to the string VALUE (repeatable)'
            cand --argjson 'Bind $NAME to the JSON value TEXT (repeatable)'
            cand --indent 'Indent with N spaces (0-7; 0 is compact). Default 2'
            cand -f 'Read the filter from FILE; every positional argument is then an input file'
            cand --from-file 'Read the filter from FILE; every positional argument is then an input file'
            cand --path 'Only the root-first path to ID (default: the latest entry). Write `--path=ID`'
            cand --kind 'Only records of this kind: message, compaction, state, label, obs; `session`/`meta` for the header'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand -r 'Write strings without quotes or escapes (raw text)'
            cand --raw-output 'Write strings without quotes or escapes (raw text)'
            cand -j 'Like -r, and no newline after each output'
            cand --join-output 'Like -r, and no newline after each output'
            cand -c 'One line per output instead of indented JSON'
            cand --compact-output 'One line per output instead of indented JSON'
            cand -s 'Run the filter once, on an array of all inputs of all files'
            cand --slurp 'Run the filter once, on an array of all inputs of all files'
            cand -n 'Run the filter once with `null` as input; read records with `input`/`inputs`'
            cand --null-input 'Run the filter once with `null` as input; read records with `input`/`inputs`'
            cand -e 'Exit 1 if the last output was false or null, 4 if there was no output'
            cand --exit-status 'Exit 1 if the last output was false or null, 4 if there was no output'
            cand --tab 'Indent with a tab'
            cand -S 'Sort object keys in the output'
            cand --sort-keys 'Sort object keys in the output'
            cand --leaves 'Only the branch tips (entries without children), in file order'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;context'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;export'= {
            cand -o 'Write to PATH instead of stdout (never to the session file or its directory)'
            cand --output 'Write to PATH instead of stdout (never to the session file or its directory)'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --html 'Write one self-contained HTML file instead of Markdown'
            cand -O 'Write arcturn-session-<yyyy-MM-dd-HHmm>.md (or .html) in the current directory, named from the session''s creation time (UTC)'
            cand --auto-name 'Write arcturn-session-<yyyy-MM-dd-HHmm>.md (or .html) in the current directory, named from the session''s creation time (UTC)'
            cand --force 'Overwrite the file -O names when it already exists'
            cand --thinking 'Include thinking blocks'
            cand --as-sent 'Export what the model is sent at the entry (the `context` view) instead of the full path'
            cand --redact 'Replace every secret `audit` finds with [REDACTED:kind] in the transcript'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;trace'= {
            cand --run 'Only the run with this id (crab run_id, or an arcturn user message id or unique prefix)'
            cand --leaf 'arcturn: trace the branch to this entry instead of the latest one'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --errors 'Only runs that have a failing span'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;stats'= {
            cand --by 'Group the summary table (default: the full report for one session, a row per session for several). With --json: {"by", "rows": [{"key", "usage"}], "total": {"usage"}}'
            cand --since 'Count only model calls at or after WHEN: a date (2026-11-30, from its start), a date-time (2026-11-30T14:00, or with Z / +01:00), or relative (7d, 12h, 30m, 2w ago). Calls without a timestamp are left out (and counted) when a window is set'
            cand --until 'Count only model calls before WHEN (exclusive); a bare date includes that whole day'
            cand --timezone 'Time zone of dates, --since/--until and day/week/month rows: an IANA name (Europe/Berlin) or UTC. Default: the local zone'
            cand --prices 'Price calls that recorded no cost with this table instead of the bundled one (same JSON shape as data/prices.json: {"models": {"NAME": {"input", "output", "cache_read", "cache_write", "above"}}}, dollars per million tokens)'
            cand --max-tokens 'CI gate: exit 1 when a session used more tokens than this (file scope: input, output, cache read and cache write)'
            cand --max-cost 'CI gate: exit 1 when a session''s cost (recorded or estimated from the price table) is above this many dollars'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'arcturn-inspect;sessions'= {
            cand --agent 'Only sessions of this agent'
            cand --sort 'Order of the list'
            cand -n 'Show at most N sessions'
            cand --limit 'Show at most N sessions'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'arcturn-inspect;grep'= {
            cand -C 'Show N lines of the entry''s text before and after each match'
            cand --context 'Show N lines of the entry''s text before and after each match'
            cand --role 'Only text of this role (a tool result''s text has role tool_result)'
            cand --tool 'Only the arguments of calls to tool NAME and the results of those calls'
            cand -M 'Cut printed lines longer than N characters around the first match (0: never cut)'
            cand --max-columns 'Cut printed lines longer than N characters around the first match (0: never cut)'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand -i 'Case-insensitive match'
            cand --ignore-case 'Case-insensitive match'
            cand -w 'Only whole words: the match is preceded and followed by a non-word character or an edge'
            cand --word-regexp 'Only whole words: the match is preceded and followed by a non-word character or an edge'
            cand -F 'The pattern is literal text, not a regex'
            cand --fixed-strings 'The pattern is literal text, not a regex'
            cand -l 'Print only the names of files with a match'
            cand --files-with-matches 'Print only the names of files with a match'
            cand -c 'Print only the number of match groups per file with a match'
            cand --count 'Print only the number of match groups per file with a match'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;diff'= {
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;rows'= {
            cand --table 'Which table to write'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'arcturn-inspect;audit'= {
            cand --allow 'Fingerprints of accepted findings, one per line (`#` starts a comment)'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --list-kinds 'List the kinds of secret found, with a description, and exit'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;redact'= {
            cand -o 'Where to write the redacted copy (never the input)'
            cand --output 'Where to write the redacted copy (never the input)'
            cand --color 'When to colour human output'
            cand --input-format 'Skip format detection'
            cand --max-bytes 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024'
            cand --force 'Replace OUT when it exists'
            cand --json 'Machine output: one JSON document per input (NDJSON when several)'
            cand --strict 'Treat any damage (torn last line, corrupt line, any warning) as fatal'
            cand -q 'No warnings on stderr'
            cand --quiet 'No warnings on stderr'
            cand --wide 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)'
            cand --no-mmap 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'arcturn-inspect;help'= {
            cand tree 'Show the whole tree: branches, compactions, labels, the path to the latest entry'
            cand path 'Print the root-first path to an entry (default: the latest)'
            cand leaves 'List every branch tip (entry without children), in file order'
            cand show 'Print one entry as stored'
            cand check 'Check files for damage and inconsistencies; exit 1 when an error is found'
            cand query 'Run a jq filter over every record of each file, as jq would over NDJSON'
            cand context 'Show what the model is sent at an entry: compactions folded, stubs, state, tokens'
            cand export 'Write a Markdown or HTML transcript of the path to an entry'
            cand trace 'Show the span tree of each run: model calls, tool calls, events, and where the time went'
            cand stats 'Token and activity statistics for sessions, files and directories'
            cand sessions 'List the sessions in a directory, newest first, reading only each file''s head and tail'
            cand grep 'Search what sessions say (text, thinking, tool calls and results), decoded, with a regex'
            cand diff 'Compare two branches of a session: their common ancestor, each side''s entries, retried prompts side by side, totals'
            cand rows 'Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions'
            cand audit 'Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found'
            cand redact 'Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind]'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'arcturn-inspect;help;tree'= {
        }
        &'arcturn-inspect;help;path'= {
        }
        &'arcturn-inspect;help;leaves'= {
        }
        &'arcturn-inspect;help;show'= {
        }
        &'arcturn-inspect;help;check'= {
        }
        &'arcturn-inspect;help;query'= {
        }
        &'arcturn-inspect;help;context'= {
        }
        &'arcturn-inspect;help;export'= {
        }
        &'arcturn-inspect;help;trace'= {
        }
        &'arcturn-inspect;help;stats'= {
        }
        &'arcturn-inspect;help;sessions'= {
        }
        &'arcturn-inspect;help;grep'= {
        }
        &'arcturn-inspect;help;diff'= {
        }
        &'arcturn-inspect;help;rows'= {
        }
        &'arcturn-inspect;help;audit'= {
        }
        &'arcturn-inspect;help;redact'= {
        }
        &'arcturn-inspect;help;help'= {
        }
    ]
    $completions[$command]
}
