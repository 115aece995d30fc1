package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Limits bound every query of a read-only path. The query cannot change
// them: they are set on its session before readonly=1 locks every setting.
type Limits struct {
	// Timeout is max_execution_time; the query is also killed when its
	// context ends (the HTTP client went away).
	Timeout time.Duration
	// MaxMemoryBytes is max_memory_usage.
	MaxMemoryBytes int64
	// MaxResultRows and MaxResultBytes are max_result_rows and
	// max_result_bytes, with result_overflow_mode = 'throw'.
	MaxResultRows  int64
	MaxResultBytes int64
	// MaxThreads is max_threads; 0 means half the cores, at least one, so
	// that an analytical query leaves the pipeline a core.
	MaxThreads int
	// Databases the queries may read. Unqualified table names resolve in
	// the first one.
	Databases []string
	// Concurrency is how many queries run at once; more wait for a turn
	// until their context ends.
	Concurrency int
}

// DefaultLimits are the limits of the SQL API unless configured.
func DefaultLimits() Limits {
	return Limits{Timeout: 30 * time.Second, MaxMemoryBytes: 1 << 30, MaxResultRows: 1_000_000, MaxResultBytes: 64 << 20,
		Databases: []string{Database, "system", "information_schema", "INFORMATION_SCHEMA"}, Concurrency: 2}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxMemoryBytes <= 0 {
		l.MaxMemoryBytes = d.MaxMemoryBytes
	}
	if l.MaxResultRows <= 0 {
		l.MaxResultRows = d.MaxResultRows
	}
	if l.MaxResultBytes <= 0 {
		l.MaxResultBytes = d.MaxResultBytes
	}
	if l.MaxThreads <= 0 {
		l.MaxThreads = max(1, runtime.NumCPU()/2)
	}
	if len(l.Databases) == 0 {
		l.Databases = d.Databases
	}
	if l.Concurrency <= 0 {
		l.Concurrency = d.Concurrency
	}
	return l
}

// settings are the session settings that enforce l, in the order they must
// be applied: readonly last, since it forbids changing any other.
func (l Limits) settings() []string {
	return []string{
		fmt.Sprintf("max_execution_time = %d", int64(math.Ceil(l.Timeout.Seconds()))),
		"timeout_overflow_mode = 'throw'",
		fmt.Sprintf("max_memory_usage = %d", l.MaxMemoryBytes),
		fmt.Sprintf("max_result_rows = %d", l.MaxResultRows),
		fmt.Sprintf("max_result_bytes = %d", l.MaxResultBytes),
		"result_overflow_mode = 'throw'",
		fmt.Sprintf("max_threads = %d", l.MaxThreads),
		// addressToLine, addressToSymbol and demangle read the process's
		// memory layout and binaries: off (they are also refused by name).
		"allow_introspection_functions = 0",
		"readonly = 1",
	}
}

// Reader runs untrusted SQL: read-only by construction, within Limits.
//
// It runs on a path of its own (its own chDB connections, or per-query
// settings on a server), so a heavy query cannot hold the pipeline's
// connection: the sinks keep writing and /readyz stays fast.
type Reader interface {
	// Query runs one read-only statement and returns its output in format
	// ("" = TabSeparated). A statement the read-only path will not run
	// returns an error wrapping ErrRefused; one the engine stopped (a limit,
	// a kill) returns the engine's error.
	Query(ctx context.Context, query, format string) ([]byte, error)
	// Close releases the path's connections.
	Close() error
}

// ErrRefused marks a statement the read-only path refuses to run.
var ErrRefused = errors.New("refused")

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// readFormats are the output formats the read-only path renders. Formats
// that read templates or schemas from files (Template, CustomSeparated with
// settings, Protobuf, CapnProto) are not among them.
var readFormats = []string{
	"TabSeparated", "TSV", "TabSeparatedRaw", "TSVRaw", "TabSeparatedWithNames", "TSVWithNames",
	"TabSeparatedWithNamesAndTypes", "TSVWithNamesAndTypes", "CSV", "CSVWithNames", "CSVWithNamesAndTypes",
	"JSON", "JSONCompact", "JSONEachRow", "JSONCompactEachRow", "JSONStrings", "JSONLines", "NDJSON",
	"Pretty", "PrettyCompact", "PrettyCompactMonoBlock", "PrettySpace", "PrettyNoEscapes", "PrettyCompactNoEscapes",
	"Vertical", "Markdown", "Values", "XML",
}

func checkFormat(format string) (string, error) {
	if format == "" {
		return "TabSeparated", nil
	}
	if !slices.Contains(readFormats, format) {
		return "", refused("output format %q is not offered (use one of %s)", format, strings.Join(readFormats, ", "))
	}
	return format, nil
}

// The guard below reads the engine's own parse of the statement (EXPLAIN
// AST, which parses and prints without executing anything) and refuses what
// readonly=1 lets through. Checked on chDB 26.5 with readonly=1 set on the
// session: a subquery's `SETTINGS readonly = 0` turns it off again for that
// subquery (file() then reads any file), the scalar file() function reads
// any file, INTO OUTFILE writes one, and `default` is an overlay of the
// filesystem in which `/etc/passwd` is a table. Hence:
//   - one statement of an allowed kind (SELECT, DESCRIBE, SHOW TABLES,
//     EXISTS, SHOW CREATE TABLE, EXPLAIN);
//   - no SETTINGS, FORMAT or INTO OUTFILE clause anywhere;
//   - table functions only from a short allow-list of generators;
//   - no function that reaches files, the network, processes or
//     dictionaries, wherever it appears;
//   - every table named with a database reads from an allowed database
//     (unqualified names resolve in robustream, the session's database);
//   - system tables by allow-list (systemTables), without their path
//     columns.
//
// The dump is of one statement only: the text was split by
// singleStatement first, and a dump with a second root is refused.

var guardRoots = []string{"SelectWithUnionQuery", "SelectIntersectExceptQuery", "DescribeQuery", "ShowTables",
	"ExistsTableQuery", "ShowCreateTableQuery", "Explain"}

// guardTableFunctions generate rows from their arguments and nothing else.
var guardTableFunctions = []string{"numbers", "numbers_mt", "zeros", "zeros_mt", "generate_series", "generateseries", "values", "one"}

// guardDeniedFunctions are scalar functions that reach outside the engine
// (files, models, bridges) or name tables and dictionaries in strings the
// table check cannot see; a few table functions are listed as well, should
// a later engine accept them in a scalar position. Lower case; an entry
// ending in "*" is a prefix.
var guardDeniedFunctions = []string{
	"file", "filesystem*", "dict*", "joinget*", "catboost*", "modelevaluate", "naivebayesclassifier",
	"hascolumnintable", "url", "s3", "remote", "remotesecure", "mysql", "postgresql", "executable", "input", "python",
	// Introspection: the process's memory layout, symbols and certificates.
	"addresstoline*", "addresstosymbol", "demangle", "trace*", "showcertificate",
}

// systemTables are the system tables the read-only path reads: what a
// user needs to explore the schema, and the row generators. Every other
// system table is refused, whatever it is: some leak other clients' query
// text (processes, query_log), paths (disks, dictionaries), or act when read
// (models starts a bridge process; stack_trace signals every thread of the
// process). The value lists the columns that reveal paths on the
// engine's host: a query that reads such a table may not name them nor
// select with '*' or a COLUMNS matcher.
var systemTables = map[string][]string{
	"tables":                         {"data_paths", "data_path", "metadata_path"}, // data_path: servers before 20.x
	"databases":                      {"data_path", "metadata_path"},
	"parts":                          {"path", "disk_name"},
	"columns":                        nil,
	"functions":                      nil,
	"table_functions":                nil,
	"table_engines":                  nil,
	"data_type_families":             nil,
	"aggregate_function_combinators": nil,
	"formats":                        nil,
	"time_zones":                     nil,
	"one":                            nil,
	"numbers":                        nil,
	"numbers_mt":                     nil,
	"zeros":                          nil,
	"zeros_mt":                       nil,
}

// pathColumn reports whether an identifier names (or may name) a column
// that reveals a path: any dot-separated part of it, in any case.
func pathColumn(ident string, columns []string) bool {
	for _, part := range strings.Split(strings.ToLower(ident), ".") {
		if slices.Contains(columns, part) {
			return true
		}
	}
	return false
}

// systemTable checks a reference to a table of the system database;
// table is the name after "system.". It returns the table's path columns.
func systemTable(table string) ([]string, error) {
	cols, ok := systemTables[strings.ToLower(table)]
	if !ok {
		return nil, refused("system table %q is not readable through the SQL API (readable: %s)", table, strings.Join(systemTableNames(), ", "))
	}
	return cols, nil
}

func systemTableNames() []string {
	names := make([]string, 0, len(systemTables))
	for n := range systemTables {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// isSystemDB: database names compare without case here, so that no
// spelling of "system" slips by (the engine itself is case-sensitive).
func isSystemDB(db string) bool { return strings.EqualFold(db, "system") }

// inFunctions take a table as their second argument (`x IN db.table`).
var inFunctions = []string{"in", "notin", "globalin", "globalnotin", "nullin", "notnullin", "globalnullin", "globalnotnullin"}

// astNode is one line of an EXPLAIN AST dump.
type astNode struct {
	depth  int
	kind   string // first word: SelectQuery, Function, TableIdentifier, …
	arg    string // the rest, without "(children N)" and "(alias X)"
	parent int    // index of the parent node, -1 for the root
}

// parseAST reads an EXPLAIN AST dump: one node per line, indented one space
// per level.
func parseAST(dump string) ([]astNode, error) {
	var nodes []astNode
	var stack []int // index of the last node seen at each depth
	for _, line := range strings.Split(strings.TrimRight(dump, "\n"), "\n") {
		if line == "" {
			continue
		}
		text := strings.TrimLeft(line, " ")
		depth := len(line) - len(text)
		if depth > len(stack) || (depth == 0 && len(nodes) > 0) {
			// A second root means a second statement; a line deeper than
			// its parent, a dump we do not understand. Neither is quoted:
			// a refusal never carries engine output.
			return nil, errors.New("the statement does not parse as exactly one statement")
		}
		text = stripSuffix(text, " (children ")
		text = stripSuffix(text, " (alias ")
		kind, arg, _ := strings.Cut(text, " ")
		parent := -1
		if depth > 0 {
			parent = stack[depth-1]
		}
		stack = append(stack[:depth], len(nodes))
		nodes = append(nodes, astNode{depth: depth, kind: kind, arg: arg, parent: parent})
	}
	if len(nodes) == 0 {
		return nil, errors.New("the statement does not parse as exactly one statement")
	}
	return nodes, nil
}

// stripSuffix removes the last occurrence of marker and what follows, when
// what follows ends with ")".
func stripSuffix(s, marker string) string {
	if i := strings.LastIndex(s, marker); i >= 0 && strings.HasSuffix(s, ")") {
		return s[:i]
	}
	return s
}

// checkAST applies the guard to an EXPLAIN AST dump.
func checkAST(dump string, databases []string) error {
	nodes, err := parseAST(dump)
	if err != nil {
		return refused("%v", err)
	}
	if root := nodes[0].kind; !slices.Contains(guardRoots, root) {
		return refused("only SELECT, DESCRIBE, SHOW TABLES, SHOW CREATE TABLE, EXISTS and EXPLAIN statements are allowed (got %s)", root)
	}
	// INTO OUTFILE hangs off the root as a literal and FORMAT as an extra
	// identifier, whatever the statement (checked on 26.5 for each root).
	idents := 0
	for _, c := range children(nodes, 0) {
		switch nodes[c].kind {
		case "Literal":
			return refused("INTO OUTFILE is not allowed")
		case "Identifier":
			idents++
		}
	}
	maxIdents := map[string]int{"ShowTables": 1, "ExistsTableQuery": 2, "ShowCreateTableQuery": 2}[nodes[0].kind]
	if idents > maxIdents {
		return refused("FORMAT clauses are not allowed (choose the output format with the format parameter)")
	}
	if nodes[0].kind == "Explain" {
		// EXPLAIN of a query, not of anything else (EXPLAIN TABLE OVERRIDE
		// takes a table function outside a FROM; EXPLAIN EXPLAIN nests).
		kids := children(nodes, 0)
		if len(kids) != 1 || !slices.Contains([]string{"SelectWithUnionQuery", "SelectIntersectExceptQuery"}, nodes[kids[0]].kind) {
			return refused("EXPLAIN is allowed of a SELECT only")
		}
	}
	// System tables by allow-list; the path columns of those that have
	// them are checked once every table is known.
	var pathCols []string
	tableAllowed := func(name string) error {
		db, table, qualified := strings.Cut(name, ".")
		if !qualified || !isSystemDB(db) {
			return nil
		}
		cols, err := systemTable(table)
		pathCols = append(pathCols, cols...)
		return err
	}
	dbAllowed := func(what, name string) error {
		db, _, qualified := strings.Cut(name, ".")
		if qualified && !slices.Contains(databases, db) {
			return refused("%s %q is outside the readable databases (%s)", what, name, strings.Join(databases, ", "))
		}
		return nil
	}
	for i, n := range nodes {
		parentKind := ""
		if n.parent >= 0 {
			parentKind = nodes[n.parent].kind
		}
		switch n.kind {
		case "Set":
			return refused("SETTINGS clauses are not allowed: the SQL API's limits are fixed")
		case "SelectWithUnionQuery":
			// Its only child is the list of selects; INTO OUTFILE, FORMAT
			// and SETTINGS would be further children.
			for _, c := range children(nodes, i) {
				if nodes[c].kind != "ExpressionList" {
					return refused("INTO OUTFILE, FORMAT and SETTINGS clauses are not allowed (choose the output format with the format parameter)")
				}
			}
		case "Function":
			name := strings.ToLower(n.arg)
			if parentKind == "TableExpression" && !slices.Contains(guardTableFunctions, name) {
				return refused("table function %s() is not allowed (allowed: %s)", n.arg, strings.Join(guardTableFunctions, ", "))
			}
			if denied(name) {
				return refused("function %s() is not allowed: it reaches files, the network, processes or objects outside the readable databases", n.arg)
			}
			if slices.Contains(inFunctions, name) {
				// x IN db.table: the second argument names a table.
				if args := children(nodes, i); len(args) == 1 {
					if ops := children(nodes, args[0]); len(ops) == 2 && nodes[ops[1]].kind == "Identifier" {
						if err := dbAllowed("table", nodes[ops[1]].arg); err != nil {
							return err
						}
						if err := tableAllowed(nodes[ops[1]].arg); err != nil {
							return err
						}
					}
				}
			}
		case "TableIdentifier":
			if err := dbAllowed("table", n.arg); err != nil {
				return err
			}
			if err := tableAllowed(n.arg); err != nil {
				return err
			}
		case "Identifier":
			// SHOW TABLES FROM db, EXISTS db.t, SHOW CREATE TABLE db.t: the
			// database is the root's first identifier.
			if n.parent == 0 {
				root := nodes[0].kind
				first := children(nodes, 0)[0] == i
				named := root == "ShowTables" || ((root == "ExistsTableQuery" || root == "ShowCreateTableQuery") && len(children(nodes, 0)) == 2)
				if first && named && !slices.Contains(databases, n.arg) {
					return refused("database %q is outside the readable databases (%s)", n.arg, strings.Join(databases, ", "))
				}
			}
		}
	}
	if len(pathCols) > 0 {
		// A table with path columns is read: no column may be selected
		// without being named, and none of them may be named, anywhere in
		// the statement (aliases and subqueries make finer checks fragile).
		for _, n := range nodes {
			if strings.Contains(n.kind, "Asterisk") || strings.Contains(n.kind, "Matcher") {
				return refused("name the columns you read from system tables ('*' and COLUMNS() would include paths)")
			}
			if n.kind == "Identifier" && pathColumn(n.arg, pathCols) {
				return refused("the columns %s are not readable through the SQL API", strings.Join(pathCols, ", "))
			}
		}
	}
	return nil
}

func children(nodes []astNode, i int) []int {
	var out []int
	for j := i + 1; j < len(nodes) && nodes[j].depth > nodes[i].depth; j++ {
		if nodes[j].parent == i {
			out = append(out, j)
		}
	}
	return out
}

func denied(name string) bool {
	for _, d := range guardDeniedFunctions {
		if p, ok := strings.CutSuffix(d, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if name == d {
			return true
		}
	}
	return false
}
