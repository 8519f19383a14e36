
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'arcturn-inspect' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'arcturn-inspect'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'arcturn-inspect' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show the whole tree: branches, compactions, labels, the path to the latest entry')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the root-first path to an entry (default: the latest)')
            [CompletionResult]::new('leaves', 'leaves', [CompletionResultType]::ParameterValue, 'List every branch tip (entry without children), in file order')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one entry as stored')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check files for damage and inconsistencies; exit 1 when an error is found')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Run a jq filter over every record of each file, as jq would over NDJSON')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Show what the model is sent at an entry: compactions folded, stubs, state, tokens')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a Markdown or HTML transcript of the path to an entry')
            [CompletionResult]::new('trace', 'trace', [CompletionResultType]::ParameterValue, 'Show the span tree of each run: model calls, tool calls, events, and where the time went')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Token and activity statistics for sessions, files and directories')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List the sessions in a directory, newest first, reading only each file''s head and tail')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search what sessions say (text, thinking, tool calls and results), decoded, with a regex')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two branches of a session: their common ancestor, each side''s entries, retried prompts side by side, totals')
            [CompletionResult]::new('rows', 'rows', [CompletionResultType]::ParameterValue, 'Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind]')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'arcturn-inspect;tree' {
            [CompletionResult]::new('--collapse', '--collapse', [CompletionResultType]::ParameterName, 'Fold linear runs longer than N entries into `... N entries ...`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;path' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;leaves' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;show' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;check' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;query' {
            [CompletionResult]::new('--arg', '--arg', [CompletionResultType]::ParameterName, 'Bind $NAME to the string VALUE (repeatable)')
            [CompletionResult]::new('--argjson', '--argjson', [CompletionResultType]::ParameterName, 'Bind $NAME to the JSON value TEXT (repeatable)')
            [CompletionResult]::new('--indent', '--indent', [CompletionResultType]::ParameterName, 'Indent with N spaces (0-7; 0 is compact). Default 2')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read the filter from FILE; every positional argument is then an input file')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read the filter from FILE; every positional argument is then an input file')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Only the root-first path to ID (default: the latest entry). Write `--path=ID`')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only records of this kind: message, compaction, state, label, obs; `session`/`meta` for the header')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Write strings without quotes or escapes (raw text)')
            [CompletionResult]::new('--raw-output', '--raw-output', [CompletionResultType]::ParameterName, 'Write strings without quotes or escapes (raw text)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Like -r, and no newline after each output')
            [CompletionResult]::new('--join-output', '--join-output', [CompletionResultType]::ParameterName, 'Like -r, and no newline after each output')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'One line per output instead of indented JSON')
            [CompletionResult]::new('--compact-output', '--compact-output', [CompletionResultType]::ParameterName, 'One line per output instead of indented JSON')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Run the filter once, on an array of all inputs of all files')
            [CompletionResult]::new('--slurp', '--slurp', [CompletionResultType]::ParameterName, 'Run the filter once, on an array of all inputs of all files')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Run the filter once with `null` as input; read records with `input`/`inputs`')
            [CompletionResult]::new('--null-input', '--null-input', [CompletionResultType]::ParameterName, 'Run the filter once with `null` as input; read records with `input`/`inputs`')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Exit 1 if the last output was false or null, 4 if there was no output')
            [CompletionResult]::new('--exit-status', '--exit-status', [CompletionResultType]::ParameterName, 'Exit 1 if the last output was false or null, 4 if there was no output')
            [CompletionResult]::new('--tab', '--tab', [CompletionResultType]::ParameterName, 'Indent with a tab')
            [CompletionResult]::new('-S', '-S ', [CompletionResultType]::ParameterName, 'Sort object keys in the output')
            [CompletionResult]::new('--sort-keys', '--sort-keys', [CompletionResultType]::ParameterName, 'Sort object keys in the output')
            [CompletionResult]::new('--leaves', '--leaves', [CompletionResultType]::ParameterName, 'Only the branch tips (entries without children), in file order')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;context' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;export' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to PATH instead of stdout (never to the session file or its directory)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to PATH instead of stdout (never to the session file or its directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--html', '--html', [CompletionResultType]::ParameterName, 'Write one self-contained HTML file instead of Markdown')
            [CompletionResult]::new('-O', '-O ', [CompletionResultType]::ParameterName, 'Write arcturn-session-<yyyy-MM-dd-HHmm>.md (or .html) in the current directory, named from the session''s creation time (UTC)')
            [CompletionResult]::new('--auto-name', '--auto-name', [CompletionResultType]::ParameterName, 'Write arcturn-session-<yyyy-MM-dd-HHmm>.md (or .html) in the current directory, named from the session''s creation time (UTC)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite the file -O names when it already exists')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Include thinking blocks')
            [CompletionResult]::new('--as-sent', '--as-sent', [CompletionResultType]::ParameterName, 'Export what the model is sent at the entry (the `context` view) instead of the full path')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Replace every secret `audit` finds with [REDACTED:kind] in the transcript')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;trace' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'Only the run with this id (crab run_id, or an arcturn user message id or unique prefix)')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'arcturn: trace the branch to this entry instead of the latest one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--errors', '--errors', [CompletionResultType]::ParameterName, 'Only runs that have a failing span')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;stats' {
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Group the summary table (default: the full report for one session, a row per session for several). With --json: {"by", "rows": [{"key", "usage"}], "total": {"usage"}}')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Count only model calls at or after WHEN: a date (2026-11-30, from its start), a date-time (2026-11-30T14:00, or with Z / +01:00), or relative (7d, 12h, 30m, 2w ago). Calls without a timestamp are left out (and counted) when a window is set')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Count only model calls before WHEN (exclusive); a bare date includes that whole day')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'Time zone of dates, --since/--until and day/week/month rows: an IANA name (Europe/Berlin) or UTC. Default: the local zone')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Price calls that recorded no cost with this table instead of the bundled one (same JSON shape as data/prices.json: {"models": {"NAME": {"input", "output", "cache_read", "cache_write", "above"}}}, dollars per million tokens)')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'CI gate: exit 1 when a session used more tokens than this (file scope: input, output, cache read and cache write)')
            [CompletionResult]::new('--max-cost', '--max-cost', [CompletionResultType]::ParameterName, 'CI gate: exit 1 when a session''s cost (recorded or estimated from the price table) is above this many dollars')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'arcturn-inspect;sessions' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of this agent')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Order of the list')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'arcturn-inspect;grep' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Show N lines of the entry''s text before and after each match')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Show N lines of the entry''s text before and after each match')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only text of this role (a tool result''s text has role tool_result)')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'Only the arguments of calls to tool NAME and the results of those calls')
            [CompletionResult]::new('-M', '-M ', [CompletionResultType]::ParameterName, 'Cut printed lines longer than N characters around the first match (0: never cut)')
            [CompletionResult]::new('--max-columns', '--max-columns', [CompletionResultType]::ParameterName, 'Cut printed lines longer than N characters around the first match (0: never cut)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Case-insensitive match')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Case-insensitive match')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Only whole words: the match is preceded and followed by a non-word character or an edge')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Only whole words: the match is preceded and followed by a non-word character or an edge')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'The pattern is literal text, not a regex')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'The pattern is literal text, not a regex')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the names of files with a match')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the names of files with a match')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print only the number of match groups per file with a match')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print only the number of match groups per file with a match')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;diff' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;rows' {
            [CompletionResult]::new('--table', '--table', [CompletionResultType]::ParameterName, 'Which table to write')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'arcturn-inspect;audit' {
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Fingerprints of accepted findings, one per line (`#` starts a comment)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--list-kinds', '--list-kinds', [CompletionResultType]::ParameterName, 'List the kinds of secret found, with a description, and exit')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;redact' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Where to write the redacted copy (never the input)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Where to write the redacted copy (never the input)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Skip format detection')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Read at most N bytes from an input that is not a regular file (stdin, a pipe, a device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G suffixes are powers of 1024')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace OUT when it exists')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine output: one JSON document per input (NDJSON when several)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat any damage (torn last line, corrupt line, any warning) as fatal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Human output: print every line and text whole instead of fitting it to the terminal''s width (`COLUMNS`, else the terminal''s, else 120 columns)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files into memory instead of mapping them: for a session that another process may rewrite or truncate while it is read')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'arcturn-inspect;help' {
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show the whole tree: branches, compactions, labels, the path to the latest entry')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the root-first path to an entry (default: the latest)')
            [CompletionResult]::new('leaves', 'leaves', [CompletionResultType]::ParameterValue, 'List every branch tip (entry without children), in file order')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one entry as stored')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check files for damage and inconsistencies; exit 1 when an error is found')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Run a jq filter over every record of each file, as jq would over NDJSON')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Show what the model is sent at an entry: compactions folded, stubs, state, tokens')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a Markdown or HTML transcript of the path to an entry')
            [CompletionResult]::new('trace', 'trace', [CompletionResultType]::ParameterValue, 'Show the span tree of each run: model calls, tool calls, events, and where the time went')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Token and activity statistics for sessions, files and directories')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List the sessions in a directory, newest first, reading only each file''s head and tail')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search what sessions say (text, thinking, tool calls and results), decoded, with a regex')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two branches of a session: their common ancestor, each side''s entries, retried prompts side by side, totals')
            [CompletionResult]::new('rows', 'rows', [CompletionResultType]::ParameterValue, 'Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind]')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'arcturn-inspect;help;tree' {
            break
        }
        'arcturn-inspect;help;path' {
            break
        }
        'arcturn-inspect;help;leaves' {
            break
        }
        'arcturn-inspect;help;show' {
            break
        }
        'arcturn-inspect;help;check' {
            break
        }
        'arcturn-inspect;help;query' {
            break
        }
        'arcturn-inspect;help;context' {
            break
        }
        'arcturn-inspect;help;export' {
            break
        }
        'arcturn-inspect;help;trace' {
            break
        }
        'arcturn-inspect;help;stats' {
            break
        }
        'arcturn-inspect;help;sessions' {
            break
        }
        'arcturn-inspect;help;grep' {
            break
        }
        'arcturn-inspect;help;diff' {
            break
        }
        'arcturn-inspect;help;rows' {
            break
        }
        'arcturn-inspect;help;audit' {
            break
        }
        'arcturn-inspect;help;redact' {
            break
        }
        'arcturn-inspect;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
