package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

const acmeChunk = "Acme Corp published its quarterly report on Monday. " +
	"Acme Corp's revenue in Q3 2025 was $4.2 billion. Its operating margin was 18%."

func TestLexicalAnswers(t *testing.T) {
	lex, err := NewLexical(IDLexical, LexicalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := func(query, context, want string) {
		t.Helper()
		a, err := lex.Answer(t.Context(), Query{Question: query, Contexts: []string{"The weather was mild. " + context + " The outlook is stable."}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Text != want {
			t.Errorf("Answer(%q | %q) = %q, want %q", query, context, a.Text, want)
		}
	}
	// The two reference cases of the brief.
	f("What was Acme Corp's revenue in Q3 2025?", "Acme Corp's revenue in Q3 2025 was $4.2 billion.", "$4.2 billion")
	f("Whom did Northwind Bank appoint as chief financial officer?",
		"Northwind Bank appointed Maria Lopez as chief financial officer.", "Maria Lopez")
	// Other shapes the question generator makes.
	f("What revenue did Acme Corp report in Q3 2025?",
		"In Q3 2025, Acme Corp reported revenue of $4.2 billion, up 12% from a year earlier.", "$4.2 billion")
	f("Who was appointed chief financial officer of Northwind Bank?",
		"Maria Lopez was appointed chief financial officer of Northwind Bank in March.", "Maria Lopez")
	f("Whom did Northwind Bank appoint as CFO?",
		"Northwind Bank, which was founded in 1901, appointed Maria Lopez as CFO.", "Maria Lopez")
	f("What was the unemployment rate in Norway in August 2025?",
		"The unemployment rate in Norway fell to 3.9% in August 2025.", "3.9%")
	f("Which company did Globex Inc. acquire in May 2025?",
		"Globex Inc. acquired Initech for $300 million in May 2025.", "Initech")
	f("What was Marovia's quarterly GDP growth in Q2 2025?",
		"Marovia's quarterly GDP growth in Q2 2025 was -0.2%, after 0.4% in Q1.", "-0.2%")
	f("Where is Initech headquartered?", "Initech is headquartered in Austin, Texas.", "Austin")
	f("How many students did the program serve in 2024?", "The program served 12,400 students in 2024.", "12,400 students")
	// Typos late in a word earn half credit; the reader still answers.
	f("What was Acme Corp's revenuw in Q3 2025?", "Acme Corp's revenue in Q3 2025 was $4.2 billion.", "$4.2 billion")
	f("Whom did Northwind Bank appoinjt as chief financial officer?",
		"Northwind Bank appointed Maria Lopez as chief financial officer.", "Maria Lopez")
	// Too little overlap: refuse rather than guess.
	f("Whom did Northwind Bank appoint as chief financial officer?", "Acme Corp sells anvils.", "no such info")
}

func TestLexicalThresholds(t *testing.T) {
	models := Builtins()
	lex, strict := models[IDLexical], models[IDLexicalStrict]
	f := func(query string, contexts []string, wantLex, wantStrict string) {
		t.Helper()
		for _, c := range []struct {
			m    Model
			want string
		}{{lex, wantLex}, {strict, wantStrict}} {
			a, err := c.m.Answer(t.Context(), Query{Question: query, Contexts: contexts})
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != c.want {
				t.Errorf("%s: Answer(%q) = %q, want %q", c.m.ID(), query, a.Text, c.want)
			}
		}
	}
	q := "What was Acme Corp's revenue in Q3 2025?"
	f(q, []string{acmeChunk}, "$4.2 billion", "$4.2 billion")
	// Closed book: no context, always a refusal.
	f(q, nil, "no such info", "no such info")
	f(q, []string{"", "  "}, "no such info", "no such info")
	// Answer removed, a lexically similar sentence remains: the default
	// reader answers from it (wrong), the strict one refuses.
	f(q, []string{"Acme Corp published its quarterly report on Monday. Acme Corp's operating margin in Q3 2025 was 18%."},
		"18%", "no such info")
	// Typos: an early-letter typo costs the whole word; the default reader
	// still answers, the strict one gives up.
	f("What was Acme Corp's revneue in Q3 2025?", []string{acmeChunk}, "$4.2 billion", "no such info")
	f("What was Axme Corp's revenue in Q3 2025?", []string{acmeChunk}, "$4.2 billion", "no such info")
	f("What was Acme Corp's revenuw in Q3 2025?", []string{acmeChunk}, "$4.2 billion", "$4.2 billion")
	// A WordNet synonym the reader cannot relate to the context.
	f("What was Acme Corp's gross in Q3 2025?", []string{acmeChunk}, "$4.2 billion", "no such info")
	// Only stopwords: nothing to look for.
	f("What was it?", []string{acmeChunk}, "no such info", "no such info")
}

func TestLexicalAnswerMeta(t *testing.T) {
	lex, _ := NewLexical("x", LexicalOptions{})
	a, err := lex.Answer(t.Context(), Query{Question: "What was Acme Corp's revenue in Q3 2025?", Contexts: []string{acmeChunk}})
	if err != nil {
		t.Fatal(err)
	}
	if a.TokensIn != 8+22 || a.TokensOut != 2 {
		t.Errorf("tokens in/out = %d/%d, want 30/2", a.TokensIn, a.TokensOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := lex.Answer(ctx, Query{Question: "q"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestNewLexical(t *testing.T) {
	f := func(id string, th, want float64, wantErr bool) {
		t.Helper()
		l, err := NewLexical(id, LexicalOptions{Threshold: th})
		if (err != nil) != wantErr {
			t.Fatalf("NewLexical(%q, %v) err = %v", id, th, err)
		}
		if err == nil && l.Threshold() != want {
			t.Errorf("threshold %v, want %v", l.Threshold(), want)
		}
	}
	f("m", 0, DefaultThreshold, false)
	f("m", 0.7, 0.7, false)
	f("m", 1, 1, false)
	f("", 0.5, 0, true)
	f("m", -0.1, 0, true)
	f("m", 1.5, 0, true)
}

func TestBuiltins(t *testing.T) {
	b := Builtins()
	if len(b) != 2 {
		t.Fatalf("%d built-ins", len(b))
	}
	for id, m := range b {
		if m.ID() != id || !IsBaseline(m) {
			t.Errorf("%s: ID %q, baseline %v", id, m.ID(), IsBaseline(m))
		}
	}
	if b[IDLexicalStrict].(*Lexical).Threshold() <= b[IDLexical].(*Lexical).Threshold() {
		t.Error("strict reader is not stricter")
	}
}

func ExampleLexical_Answer() {
	m := Builtins()[IDLexical]
	ctx := []string{"Northwind Bank appointed Maria Lopez as chief financial officer. The bank is based in Oslo."}
	a, _ := m.Answer(context.Background(), Query{Question: "Whom did Northwind Bank appoint as chief financial officer?", Contexts: ctx})
	fmt.Println(a.Text)
	a, _ = m.Answer(context.Background(), Query{Question: "Whom did Northwind Bank appoint as chief financial officer?"})
	fmt.Println(a.Text)
	// Output:
	// Maria Lopez
	// no such info
}
