package clickhouse

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSingleStatement: one statement passes (a trailing ';' stripped);
// every spelling of a second one, and every construct lexers could read
// differently, is refused with a message that says nothing of the text.
func TestSingleStatement(t *testing.T) {
	accept := map[string]string{
		"SELECT 1":                                "SELECT 1",
		"SELECT 1;":                               "SELECT 1",
		"SELECT 1 ;  \n\t":                        "SELECT 1 ",
		"SELECT 1; -- done":                       "SELECT 1",
		"SELECT 1; /* done; really */":            "SELECT 1",
		"SELECT 1; # done":                        "SELECT 1",
		"SELECT ';'":                              "SELECT ';'",
		"SELECT 'a;b', \"c;d\", `e;f`":            "SELECT 'a;b', \"c;d\", `e;f`",
		"SELECT 'it''s; fine'":                    "SELECT 'it''s; fine'",
		"SELECT 'back\\'slash; fine'":             "SELECT 'back\\'slash; fine'",
		"SELECT 'back\\\\'":                       "SELECT 'back\\\\'",
		"SELECT 1 -- a comment; with a semicolon": "SELECT 1 -- a comment; with a semicolon",
		"SELECT 1 /* ; */ + 2":                    "SELECT 1 /* ; */ + 2",
		"SELECT 1 # hash; comment\n":              "SELECT 1 # hash; comment\n",
		"SELECT 1 #! shebang;\n":                  "SELECT 1 #! shebang;\n",
		"-- leading\nSELECT 1":                    "-- leading\nSELECT 1",
		"SELECT 1\r\n-- crlf;\r\n":                "SELECT 1\r\n-- crlf;\r\n",
		"SELECT\t1\n\nFROM\tnumbers(2)":           "SELECT\t1\n\nFROM\tnumbers(2)",
		"SELECT 'héllo; wörld' AS 名前":             "SELECT 'héllo; wörld' AS 名前",
		"SELECT `a``b;c`":                         "SELECT `a``b;c`",
		"SELECT 1 /* a */ /* b; */":               "SELECT 1 /* a */ /* b; */",
		"SELECT 1 */ 2":                           "SELECT 1 */ 2",
		"SELECT 2--1\n":                           "SELECT 2--1\n",
	}
	for q, want := range accept {
		got, toks, err := singleStatement(q)
		if err != nil || got != want {
			t.Errorf("singleStatement(%q) = %q, %v; want %q", q, got, err, want)
		}
		if len(toks) == 0 {
			t.Errorf("singleStatement(%q): no tokens", q)
		}
	}

	refuse := []string{
		"",
		"   \n\t",
		"-- only a comment",
		";",
		"SELECT 1;SELECT 2",
		"SELECT 1; SELECT 2",
		"SELECT 1;\nSELECT 2",
		"SELECT 1\t;\tSELECT 2",
		"SELECT 1 ;\n KILL QUERY WHERE 1",
		"SELECT 1; INSERT INTO robustream.documents VALUES ('x', 1)",
		"SELECT 1; SELECT file('/etc/hostname')",
		"SELECT 1;;",
		"SELECT 1; ;",
		"SELECT 1 -- c\n; SELECT 2",
		"SELECT 1 /* c */; SELECT 2",
		"SELECT 1; /* c */ SELECT 2",
		"SELECT 1; -- c\nSELECT 2",
		"SELECT ';' ; SELECT 2",
		"SELECT \"a\";DROP TABLE t",
		"SELECT `a`;SET readonly = 0",
		"SELECT 'a'';' ; USE default",
		"SELECT 1; SYSTEM FLUSH LOGS",
		"SELECT 1 INTO OUTFILE '/tmp/x'; SELECT 2",
		"SELECT 'héllo'; SELECT 'wörld'",
		"SELECT 1;\u00a0", // a no-break space is not whitespace to ClickHouse
		// Unterminated quotes and comments.
		"SELECT 'abc",
		"SELECT 'abc\\'",
		"SELECT 'abc\\",
		"SELECT \"abc",
		"SELECT `abc",
		"SELECT 1 /* open",
		"SELECT 1 /* open *",
		"SELECT 1 /*/ ; SELECT 2",
		// Constructs lexers read differently.
		"SELECT 1 /* /* */ ; SELECT 2 */",               // nested comments
		"SELECT 1 /* /* nested */ */",                   // even harmless ones
		"SELECT 1 -- x\r; SELECT 2",                     // a lone CR in a line comment
		"SELECT 1 AS `a\\`b` ; SELECT 2 -- `",           // a backslash in a quoted name
		"SELECT 1 AS \"a\\\"b\" ; SELECT 2 -- \"",       // the same in double quotes
		"SELECT $$a;b$$",                                // heredoc
		"SELECT $$'$$; SELECT file('/etc/passwd') -- '", // heredoc hiding a quote
		"SELECT 1 #x ; SELECT 2",                        // '#' not followed by ' ' or '!'
		"SELECT 1#",
		"SELECT 1\x00; SELECT 2",
		"SELECT '\x00'",
		"SELECT 1 -- \x00\n",
	}
	for _, q := range refuse {
		got, _, err := singleStatement(q)
		if err == nil {
			t.Errorf("singleStatement(%q) = %q, want refused", q, got)
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("singleStatement(%q): %v is not a refusal", q, err)
		}
		for _, word := range []string{"SELECT 2", "KILL", "DROP", "file(", "hostname", "passwd"} {
			if strings.Contains(q, word) && strings.Contains(err.Error(), word) {
				t.Errorf("singleStatement(%q): the refusal quotes the text: %v", q, err)
			}
		}
	}
	if _, _, err := singleStatement("SELECT 1; SELECT 2"); err != errMultiStatement {
		t.Errorf("a second statement: %v, want the fixed refusal", err)
	}
}

// TestSingleStatementTokens: the tokens the server path checks system
// tables on.
func TestSingleStatementTokens(t *testing.T) {
	_, toks, err := singleStatement("SELECT /*x*/ `a``b`, 'c''d' FROM \"system\" . processes -- t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		got = append(got, string("WQSP"[tk.kind])+":"+tk.text)
	}
	want := "W:SELECT Q:a`b P:, S:c'd W:FROM Q:system P:. W:processes"
	if strings.Join(got, " ") != want {
		t.Errorf("tokens %q, want %q", strings.Join(got, " "), want)
	}
	for q, wantErr := range map[string]bool{
		"SELECT name FROM system.tables":                          false,
		"SELECT name FROM `system`.`columns`":                     false,
		"SELECT * FROM system.processes":                          true,
		"SELECT query FROM SYSTEM . query_log":                    true,
		"SELECT 1 FROM \"system\"./**/stack_trace":                true,
		"SELECT * FROM system.tables":                             true,
		"SELECT metadata_path FROM system.tables":                 true,
		"SELECT name FROM system.databases WHERE data_path != ''": true,
		"SELECT 'system.processes'":                               false,
		"SELECT count() FROM robustream.outcomes":                 false,
	} {
		_, toks, err := singleStatement(q)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSystemTokens(toks); (err != nil) != wantErr {
			t.Errorf("checkSystemTokens(%q) = %v, want refused %v", q, err, wantErr)
		}
	}
}

// FuzzSingleStatement: whatever the text, an accepted statement holds no
// ';' outside quotes and comments (checked by a second, independent scan),
// the refusal of a second statement is the fixed one, and nothing panics.
func FuzzSingleStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 1; SELECT 2", "SELECT ';'", "SELECT 1 -- ;\n", "SELECT 1 /* ; */",
		"SELECT `a``b`", "SELECT 'a\\'b'", "SELECT 1 # x\n;", "SELECT 1 /* /* */ */", "SELECT $$;$$", "SELECT 1;\n-- x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		stmt, _, err := singleStatement(q)
		if err != nil {
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("%q: %v is not a refusal", q, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: multi-line refusal %q", q, err)
			}
			return
		}
		if !strings.HasPrefix(q, stmt) {
			t.Fatalf("%q: the statement %q is not a prefix of the text", q, stmt)
		}
		if n := semicolonsOutside(stmt); n != 0 {
			t.Fatalf("%q accepted as %q with %d ';' outside quotes and comments", q, stmt, n)
		}
		// Accepted again as itself: stripping is idempotent.
		if again, _, err := singleStatement(stmt); err != nil || again != stmt {
			t.Fatalf("%q: accepted as %q, which gives %q, %v", q, stmt, again, err)
		}
		_ = utf8.ValidString(stmt)
	})
}

// semicolonsOutside counts ';' outside quotes and comments with a scanner
// written separately from singleStatement, reading the most permissive
// grammar any ClickHouse had: backslash escapes in every quote form, line
// comments after '--' and '#', and block comments that nest.
func semicolonsOutside(q string) int {
	n := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == ';':
			n++
		case c == '\'' || c == '"' || c == '`':
			for i++; i < len(q) && q[i] != c; i++ {
				if q[i] == '\\' {
					i++
				}
			}
		case strings.HasPrefix(q[i:], "--") || c == '#':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case strings.HasPrefix(q[i:], "/*"):
			depth := 1
			for i += 2; i < len(q) && depth > 0; i++ {
				if strings.HasPrefix(q[i:], "/*") {
					depth++
					i++
				} else if strings.HasPrefix(q[i:], "*/") {
					depth--
					i++
				}
			}
			i--
		}
	}
	return n
}
