package chunk

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the current output")

// goldenPiece is a Piece as stored in a golden file.
type goldenPiece struct {
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Tokens int    `json:"tokens"`
	Kind   string `json:"kind"`
	Split  string `json:"split,omitempty"`
	Header int    `json:"header,omitempty"`
	Text   string `json:"text"`
}

type golden struct {
	Input   string        `json:"input"`
	Profile string        `json:"profile"`
	Max     int           `json:"max_tokens"`
	Pieces  []goldenPiece `json:"pieces"`
}

// TestGolden chunks the documents of testdata/golden with both profiles
// and compares the chunks with the stored ones (go test -run TestGolden
// -update rewrites them). Beyond the comparison it checks the rules
// directly, so that a regenerated file cannot bless a broken rule: tables
// with their introduction and never cut when they fit, and GRADE overlaps
// of exactly 50 tokens.
func TestGolden(t *testing.T) {
	cases := []struct {
		name, input, profile string
		max                  int
	}{
		{"tables.rare", "tables.md", ProfileRARE, DefaultMaxTokens},
		{"tables.rare-80", "tables.md", ProfileRARE, 80},
		{"tables.grade", "tables.md", ProfileGRADE, GradeMaxTokens},
		{"prose.rare", "prose.md", ProfileRARE, DefaultMaxTokens},
		{"prose.grade", "prose.md", ProfileGRADE, GradeMaxTokens},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "golden", c.input))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			p, err := resolve(SourceConfig{Profile: c.profile, MaxTokens: c.max}, "")
			if err != nil {
				t.Fatal(err)
			}
			pieces := p.split(text)
			if c.profile == ProfileGRADE {
				checkGrade(t, c.name, text, GradeMinTokens, c.max, GradeOverlapTokens)
				checkWindowKinds(t, text, pieces)
			} else {
				checkPieces(t, text, c.max, pieces)
				checkTables(t, c.name, text, c.max, pieces)
			}
			got := golden{Input: c.input, Profile: c.profile, Max: c.max}
			for _, p := range pieces {
				got.Pieces = append(got.Pieces, goldenPiece{p.Start, p.End, p.Tokens, p.Kind, p.Split, p.Header, p.Text})
			}
			out, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, '\n')
			path := filepath.Join("testdata", "golden", c.name+".json")
			if *update {
				if err := os.WriteFile(path, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("chunks differ from %s (go test -run TestGolden -update rewrites it after review); got:\n%s", path, out)
			}
		})
	}
}

// TestGoldenTablesIntroduced spells out, on tables.md, what the golden file
// of the RARE profile must show: each table in one chunk with the
// paragraph that introduces it, its caption and its notes.
func TestGoldenTablesIntroduced(t *testing.T) {
	b, err := os.ReadFile("testdata/golden/tables.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, max := range []int{DefaultMaxTokens, 200, 120} {
		pieces := Split(text, max)
		with := func(row string, parts ...string) {
			t.Helper()
			n := 0
			for _, p := range pieces {
				if !strings.Contains(p.Text, row) {
					continue
				}
				n++
				if p.Kind != KindTable || p.Split != SplitNone {
					t.Errorf("max %d: the chunk of %q is of kind %s, cut %q", max, row, p.Kind, p.Split)
				}
				for _, part := range parts {
					if !strings.Contains(p.Text, part) {
						t.Errorf("max %d: the chunk of %q lacks %q:\n%s", max, row, part, p.Text)
					}
				}
			}
			if n != 1 {
				t.Errorf("max %d: row %q in %d chunks", max, row, n)
			}
		}
		with("| Rail | 236.4 | 241.9 |", "Revenue by segment was as follows:", "| Road |", "| Sea |", "Note: segment figures exclude intercompany charges.")
		with("| Central | 2,877 | +6% |", "The company grew its workforce", "Table 2: Headcount by region", "| North |", "| South |",
			"Source: Northwind Freight human resources.", "*Full-time equivalents at 31 December.")
		with("| 2027 | 95 | 60 |", "**Fleet plan 2026-2028**", "| 2026 |", "| 2028 |")
	}
}
