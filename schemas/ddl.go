package schemas

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// The ClickHouse DDL lives in sql/NNN_name.sql, applied in lexical order.
// Every statement is idempotent (IF NOT EXISTS, MODIFY SETTING), so a
// migration simply applies all of them every time; a changed definition of
// an existing object ships as a new file that alters, or drops and
// recreates, it. A new column of an existing table ships as ALTER TABLE …
// ADD COLUMN IF NOT EXISTS, which the runner applies on every version
// (AddColumn), 18.16 included.
//
// A file named NNN_name.min-X.Y.sql is version-gated: it applies only to
// engines whose ClickHouse version is X.Y or later (e.g. the deduplication
// settings, 22.2+), and is skipped on older servers such as 18.16.
//
//go:embed sql/*.sql
var sqlFiles embed.FS

// Migration is one DDL file.
type Migration struct {
	// Name is the file name, e.g. "010_raw_tables.sql".
	Name string
	// MinVersion is the lowest ClickHouse version the file applies to, from
	// its ".min-X.Y" suffix; "" means every version.
	MinVersion string
	// Statements are the file's statements without their trailing ';'.
	Statements []string
}

// Migrations returns the DDL files in the order they must run.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(sqlFiles, "sql/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]Migration, 0, len(names))
	for _, path := range names {
		b, err := sqlFiles.ReadFile(path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(path, "sql/")
		m := Migration{Name: name, Statements: SplitStatements(string(b))}
		if _, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), ".min-"); ok {
			if rest == "" {
				return nil, fmt.Errorf("DDL file %s: empty minimum version", name)
			}
			m.MinVersion = rest
		}
		out = append(out, m)
	}
	return out, nil
}

// AppliesTo reports whether m runs on an engine of the given version.
func (m Migration) AppliesTo(version string) bool {
	return m.MinVersion == "" || CompareVersions(version, m.MinVersion) >= 0
}

// SplitStatements splits a DDL file into statements at each ';' that ends a
// line, dropping "--" comment lines. Our DDL keeps semicolons out of string
// literals and comments, which is what makes this simple split enough (and
// the tests check it).
func SplitStatements(sql string) []string {
	var stmts []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			stmts = append(stmts, s)
		}
		cur.Reset()
	}
	for _, line := range strings.Split(sql, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		if strings.HasSuffix(t, ";") {
			cur.WriteString(strings.TrimSuffix(strings.TrimRight(line, " \t\r"), ";"))
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return stmts
}

// CompareVersions compares dotted numeric versions such as "18.16.1" and
// "22.2": -1, 0 or 1. Missing parts count as zero and anything after the
// digits of a part ("1-stable") is ignored.
func CompareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		x, y := versionPart(pa, i), versionPart(pb, i)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	return 0
}

func versionPart(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n := 0
	for _, c := range parts[i] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// ColumnAdd is a DDL statement that adds a column where it is missing:
// ALTER TABLE db.table ADD COLUMN IF NOT EXISTS name type.
type ColumnAdd struct {
	Database, Table, Column string
	// Plain is the statement without IF NOT EXISTS, which ClickHouse 18.16
	// does not parse: the migration runner runs it only when system.columns
	// has no such column.
	Plain string
}

var reAddColumn = regexp.MustCompile(`^ALTER TABLE (\w+)\.(\w+) ADD COLUMN IF NOT EXISTS (\w+) (.+)$`)

// AddColumn reads stmt as a ColumnAdd; ok is false for any other
// statement.
func AddColumn(stmt string) (c ColumnAdd, ok bool) {
	m := reAddColumn.FindStringSubmatch(strings.TrimSpace(stmt))
	if m == nil || strings.Contains(m[4], ",") {
		return ColumnAdd{}, false
	}
	return ColumnAdd{Database: m[1], Table: m[2], Column: m[3],
		Plain: fmt.Sprintf("ALTER TABLE %s.%s ADD COLUMN %s %s", m[1], m[2], m[3], m[4])}, true
}
