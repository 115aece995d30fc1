package question

import (
	"fmt"
	"math"
	"testing"
)

func TestNormalize(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	f("", "")
	f("The $4.2 Billion", "4.2 billion") // the decimal point is kept: 4.2 ≠ 42
	f("  A   theory of an apple ", "theory of apple")
	f("the\u00a0the", "") // Unicode space separates words too
	f("Thé café, 12,400!", "thé café 12400")
	f("then another", "then another")     // articles only as whole words
	f("12.4% — up", "12.4 per cent up")   // percent spelled out; an em dash separates words
	f("12.4% • up", "12.4 per cent • up") // other non-ASCII punctuation is kept
}

func TestAnswerMatching(t *testing.T) {
	f := func(question, answer string, want bool) {
		t.Helper()
		if got := ContainsAnswer(question, answer); got != want {
			t.Errorf("ContainsAnswer(%q, %q) = %v, want %v", question, answer, got, want)
		}
	}
	f("What was Acme Corp's revenue?", "$4.2 billion", false)
	f("Was it $4.2 billion?", "4.2 billion", true)
	f("How many stores did Acme open in Q1 2012?", "12", false) // a substring test would say true
	f("Who leads the party?", "art", false)
	f("What?", "", false)

	if !AnswerInText("$4.2 Billion", "revenue was $4.2 billion.") || AnswerInText("4.3 billion", "revenue was $4.2 billion.") || AnswerInText("", "x") {
		t.Error("AnswerInText")
	}
}

func TestDifficulty(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	f := func(q string, chunks []string, want float64) {
		t.Helper()
		if got := Difficulty(q, chunks); !near(got, want) {
			t.Errorf("Difficulty(%q, %q) = %v, want %v", q, chunks, got, want)
		}
	}
	// Content words of the question: {acme, corp, revenue} (stopwords dropped).
	f("What was Acme Corp's revenue?", []string{"Acme Corp revenue"}, 0)
	f("What was Acme Corp's revenue?", []string{"Northwind Bank margin"}, 1)
	// |A∩B| = 2, |A| = 3, |B| = 4: sim = 2/sqrt(12).
	f("What was Acme Corp's revenue?", []string{"Acme Corp opened stores"}, 1-2/math.Sqrt(12))
	// D_r uses the least similar supporting chunk (GRADE eq. 1).
	f("What was Acme Corp's revenue?", []string{"Acme Corp revenue", "Northwind Bank margin"}, 1)
	f("What was it?", []string{"Acme"}, 1)
	f("Acme", nil, 1)
	if s := LexicalSimilarity("Acme revenue", "acme REVENUE"); !near(s, 1) {
		t.Errorf("similarity is case-sensitive: %v", s)
	}
}

func TestChecks(t *testing.T) {
	f := func(q, a string, chunks []string, pass bool, failed string) {
		t.Helper()
		scores, ok := Checks(q, "Acme Corp", a, chunks)
		if ok != pass || len(scores) != 8 {
			t.Errorf("Checks(%q, %q) = %v, %v; want pass=%v", q, a, scores, ok, pass)
		}
		if failed != "" && scores[failed] != 0 {
			t.Errorf("Checks(%q, %q): %s = %v, want 0", q, a, failed, scores[failed])
		}
	}
	chunk := []string{"Acme Corp opened 12 new stores in Q3 2025."}
	f("How many new stores did Acme Corp open?", "12 new stores", chunk, true, "")
	f("How many new stores did Acme Corp open?", "14 new stores", chunk, false, CheckAnswerInChunk)
	f("How many new stores did Acme Corp open?", " ", chunk, false, CheckAnswerNonEmpty)
	f("12 new stores", "12 new stores", chunk, false, CheckQuestionDiffers)
	f("Did Acme Corp open 12 new stores?", "12 new stores", chunk, false, CheckAnswerNotInQuestion)
	f("How many new stores did Acme Corp open?", "12 new stores", nil, false, CheckAnswerInChunk)
	f("Where did Acme Corp open 12 new stores?", "in Q3 2025", chunk, false, CheckAnswerWhole)

	// A command table's row is an instruction ("Show job environment"),
	// named by its table: the question passes; the same head elsewhere
	// does not.
	table := []string{"List of quillctl snippets\n\n| Operation | Command snippets |\n|---|---|\n| Show job environment | \"quillctl show-environment\" |"}
	if s, ok := Checks(`In "List of quillctl snippets", which command shows job environment?`, "Show job environment", `"quillctl show-environment"`, table); !ok {
		t.Errorf("a command-table question failed its checks: %v", s)
	}
	if s, ok := Checks("What does Show job environment give?", "Show job environment", `"quillctl show-environment"`, table); ok || s[CheckSubjectNamed] != 0 {
		t.Errorf("an instruction as subject passed: %v", s)
	}
}

// TestWellFormed: questions a person would not ask are rejected: about an
// instruction or a pronoun rather than a named subject, or with a clause
// fragment for an answer (found in release notes and changelogs).
func TestWellFormed(t *testing.T) {
	subject := func(head string, want bool) {
		t.Helper()
		if got := SubjectNamed(head); got != want {
			t.Errorf("SubjectNamed(%q) = %v, want %v", head, got, want)
		}
	}
	subject("Decompression", false) // an abstract noun heading a sentence
	subject("Northwind", true)
	subject("Acme Corp", true)
	subject("git symbolic-ref HEAD", true)
	subject("Northwind Bank", true)
	subject("PostgreSQL 16", true)
	subject("Make Corp", true) // a name that starts like a verb
	subject("Make sure", false)
	subject("Fix performance issue", false)
	subject("To fix this", false)
	subject("Avoid unnecessary build", false)
	subject("Decode key as 32-bit sign", false)
	subject("Move a global variable", false)
	subject("Fixes for tests when the source directory", false)
	subject("Adds support", false)
	subject("Acme Corp", true)
	subject("It", false)
	subject("this", false)
	subject("", false)

	answer := func(a string, want bool) {
		t.Helper()
		if got := AnswerWhole(a); got != want {
			t.Errorf("AnswerWhole(%q) = %v, want %v", a, got, want)
		}
	}
	answer("12 new stores", true)
	answer("$4.2 billion", true)
	answer("April 28, 2026", true)
	answer("Maria Lopez", true)
	answer("in CI", false)
	answer("or attached", false)
	answer("in GIN index search startup", false)
	answer("dependency file is stably sorted to", false)
	answer("been adjusted", false)
	answer("is sorted", false)
	answer("usually include", false)
	answer(`a natural extension of "git rev-list A..B`, false)
	answer(`the "git log" command`, true)
	answer("indexed arrays (of unlimited size", false)
	answer(`the meaning of the "warning" etc`, false) // a list cut at "etc"
	answer("", false)
}

func ExampleDifficulty() {
	chunk := "Acme Corp's revenue in Q3 2025 was $4.2 billion. Acme Corp opened 12 new stores in Q3 2025."
	fmt.Printf("%.3f\n", Difficulty("What was Acme Corp's revenue in Q3 2025?", []string{chunk}))
	fmt.Printf("%.3f\n", Difficulty("Whom did Northwind Bank appoint?", []string{chunk}))
	// Output:
	// 0.355
	// 1.000
}
